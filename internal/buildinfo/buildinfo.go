// Package buildinfo says which build of hive is running: the version and
// commit the Makefile's -ldflags set, else what Go stamped in the binary
// (the module version of `go install ...@vX`, the VCS revision of a build
// in a checkout).
package buildinfo

import "runtime/debug"

// Info is a build's version and commit.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Dirty   bool   `json:"dirty,omitempty"` // built from a checkout with changes
}

// String is "VERSION (commit COMMIT)", with "+dirty" after a modified checkout's commit.
func (i Info) String() string {
	c := i.Commit
	if i.Dirty {
		c += "+dirty"
	}
	return i.Version + " (commit " + c + ")"
}

// Get is the build's info: version and commit as given (from -ldflags -X),
// else from the binary's build info, else "devel" and "unknown".
func Get(version, commit string) Info {
	i := Info{Version: version, Commit: commit}
	if bi, ok := debug.ReadBuildInfo(); ok {
		i = fill(i, bi)
	}
	if i.Version == "" {
		i.Version = "devel"
	}
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	return i
}

// fill completes i from Go's build info, keeping what is set.
func fill(i Info, bi *debug.BuildInfo) Info {
	ldCommit := i.Commit != ""
	if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		i.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && !ldCommit:
			i.Commit = s.Value
			if len(i.Commit) > 12 {
				i.Commit = i.Commit[:12]
			}
		case s.Key == "vcs.modified" && !ldCommit:
			i.Dirty = s.Value == "true"
		}
	}
	return i
}
