package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFill(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "true"}}}
	if got := fill(Info{}, bi).String(); got != " (commit 0123456789ab+dirty)" {
		t.Fatalf("from vcs stamps: %q", got)
	}
	if got := fill(Info{Version: "v1.2.3", Commit: "abc"}, bi).String(); got != "v1.2.3 (commit abc)" {
		t.Fatalf("ldflags win: %q", got)
	}
	bi.Main.Version = "v0.4.0"
	if got := fill(Info{}, bi); got.Version != "v0.4.0" {
		t.Fatalf("module version: %+v", got)
	}
}
