package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's "Workflows" as a new user follows it, with the real binary
// and a fresh data directory and HIVE_HOME: "Two members chatting" first
// (the hub, the profiles, #general), then the two commands (alice's own
// runner, set up on the way; apply of the example, which adds the runner
// to #general) and the tries: bob's !hello gets a card and the greeting,
// the manual run waits for its end, bob reads both.
func TestReadmeWorkflows(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	if err := os.Symlink(binary(t), filepath.Join(dir, "bin", "hive")); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("../examples")
	os.Symlink(abs, filepath.Join(dir, "examples"))
	w := &readmeWalk{t: t, dir: dir, addr: freeAddr(t), npubs: map[string]string{}, bg: map[string]*bgProc{},
		env: map[string]string{"HIVE_HOME": filepath.Join(dir, "home")}}
	for _, heading := range []string{"## Two members chatting, from scratch", "## Workflows"} {
		for _, block := range shBlockRe.FindAllStringSubmatch(section(t, readme, heading), -1) {
			for _, l := range strings.Split(block[1], "\n") {
				w.line(l)
			}
		}
	}
	if w.bg["workflow"] == nil {
		t.Fatal("the README keeps no runner running")
	}
	read := func() string {
		out, _ := w.shell("hive read general --profile bob").CombinedOutput()
		return string(out)
	}
	waitText(t, "the manual run's greeting", 20*time.Second, read, ": Hello team! (run ")
	got := read()
	// the README's members have no names: they show as npubs
	for _, want := range []string{"▶ hello · run ", " (message) (run: ✓ finished ", " (manual: who=team) (1 replies, run: ✓ finished ", ": Hello npub1"} {
		if !strings.Contains(got, want) {
			t.Fatalf("hive read general has no %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quoting") {
		t.Fatalf("a run card shows as a quote:\n%s", got)
	}
}
