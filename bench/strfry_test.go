package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The configuration strfry runs with: loopback and the run's port, its database in the run's
// directory, AUTH and compression off, the descriptor limit left alone.
func TestStrfryConf(t *testing.T) {
	conf, err := strfryConf("/run/x/db", "127.0.0.1:40123")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`db = "/run/x/db/"`, `bind = "127.0.0.1"`, "port = 40123", "nofiles = 0",
		"auth {\n        enabled = false", "compression {\n        enabled = false"} {
		if !strings.Contains(conf, want) {
			t.Errorf("config lacks %q:\n%s", want, conf)
		}
	}
	if _, err := strfryConf("no port", ""); err == nil {
		t.Error("an address without a port gave a config")
	}
}

// -peer strfry without a binary is refused with what to pass.
func TestStrfryNeedsBinary(t *testing.T) {
	dir := t.TempDir()
	_, err := newStrfry("", dir, "127.0.0.1:1", "", 10)
	if err == nil || err.Error() != "-peer strfry needs the strfry binary: -strfry-bin PATH or STRFRY_BIN" {
		t.Errorf("no binary: %v", err)
	}
	if _, err := newStrfry(filepath.Join(dir, "missing"), dir, "127.0.0.1:1", "", 10); err == nil || !strings.HasPrefix(err.Error(), "-strfry-bin: ") {
		t.Errorf("missing binary: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "strfry.conf")); err == nil {
		t.Error("a config was written for a peer that cannot run")
	}
}
