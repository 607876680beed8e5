package agentbridge

import (
	"errors"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	hex := strings.Repeat("ab12", 16)
	in := "key sk-ant-api03-abcdefgh and nsec1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq, ncryptsec1qgqqqqqqqqqqqqqqqqqqqqqqqqq; " +
		"Authorization: Bearer abc.def.ghi token=t0k3n-value api_key: \"quoted-key\" x-api-key=XYZ123456 " +
		"ghp_0123456789abcdefghij AKIAABCDEFGHIJKLMNOP secret " + hex + " the value my-config-secret here"
	got := redact(in, map[string]string{"MY_VAR": "my-config-secret", "SHORT": "yes"})
	for _, leak := range []string{"sk-ant", "nsec1q", "ncryptsec1q", "abc.def.ghi", "t0k3n", "quoted-key", "XYZ123456", "ghp_", "AKIA", hex, "my-config-secret"} {
		if strings.Contains(got, leak) {
			t.Errorf("redacted text still holds %q: %s", leak, got)
		}
	}
	for _, keep := range []string{"Authorization: [redacted]", "token=[redacted]", "x-api-key=[redacted]", "the value [redacted] here", "secret "} {
		if !strings.Contains(got, keep) {
			t.Errorf("redacted text lacks %q: %s", keep, got)
		}
	}
}

func TestFailureTextTailAndCause(t *testing.T) {
	var tail tailBuffer
	for i := 0; i < 40; i++ {
		tail.Write([]byte("line " + strings.Repeat("x", i) + "\n"))
	}
	tail.Write([]byte("Error: Authentication required, ANTHROPIC_API_KEY=sk-live-123456789\n\n"))
	got := failureText("the agent failed", errors.New("Authentication required"), &tail, map[string]string{"ANTHROPIC_API_KEY": "sk-live-123456789"})
	lines := strings.Split(got, "\n")
	if !strings.HasPrefix(got, "the agent failed: Authentication required\nLikely cause: the agent has no valid credentials: give it its API key in the config's env") {
		t.Fatalf("failure text %q", got)
	}
	if n := strings.Count(got, "line "); n != stderrLines-1 {
		t.Fatalf("%d stderr lines shown, want the last %d (with the error line): %s", n, stderrLines, got)
	}
	if lines[len(lines)-2] != "Error: Authentication required, ANTHROPIC_API_KEY=[redacted]" || strings.Contains(got, "sk-live") {
		t.Fatalf("last stderr line %q", lines[len(lines)-2])
	}
	big := tailBuffer{}
	big.Write([]byte(strings.Repeat("y", 3*stderrKeep)))
	if len(big.buf) != stderrKeep || len(big.lines(1)[0]) > stderrLine+len("…") {
		t.Fatalf("tail keeps %d bytes, shows a line of %d", len(big.buf), len(big.lines(1)[0]))
	}
}
