package test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ainb/hive/test/mockmodel"
)

// The real gemini-cli (`gemini --acp`), its model calls answered by the mock
// Gemini API (GOOGLE_GEMINI_BASE_URL, a GEMINI_API_KEY): a mention gets
// exactly the model's text as the one threaded reply; a turn where the model
// calls run_shell_command raises a permission request (gemini sends no
// tool_call, only tool_call_update, and numbers its requests from id 0), the
// owner approves it with a control frame, and the command runs. No gemini
// process is left once the bridge stops.
func TestBridgeGeminiCLI(t *testing.T) {
	bin := adapterBin(t, "gemini")
	mock, err := mockmodel.StartGemini("hello from the mock model", "echo hi > out.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mock.Close)
	e := newBridgeEnv(t)
	home := filepath.Join(e.dir, "home")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
	// No usage statistics or update checks from the tests.
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"privacy":{"usageStatisticsEnabled":false},"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false}}`), 0o600)
	e.config(t, []string{bin, "--acp"},
		fmt.Sprintf(`env = { HOME = %q, GEMINI_API_KEY = "mock-key", GOOGLE_GEMINI_BASE_URL = %q }`, home, mock.URL),
		`mode = "default"`, `permissions = "ask"`, `permission_timeout = "90s"`, `turn_timeout = "3m"`, `idle_timeout = "2m"`)
	e.runAdapter(t, e.workDir(t), mock.Text, mock.Log, "HOME="+home, 1)
}
