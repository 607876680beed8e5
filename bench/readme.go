package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// What the run says about itself above the table, and the README section it rewrites.

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func unameM() string {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return runtime.GOARCH
	}
	return strings.TrimSpace(string(out))
}

// hiveRevision names the hive source that was built: its commit, and whether files outside
// bench/ differed from it.
func hiveRevision(src string) string {
	if src == "" {
		return "a prebuilt binary (-hive-bin)"
	}
	out, err := exec.Command("git", "-C", src, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "an unknown revision"
	}
	rev := "commit " + strings.TrimSpace(string(out))
	st, err := exec.Command("git", "-C", src, "status", "--porcelain", "--", ".", ":(exclude)bench").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += " with uncommitted changes"
	}
	return rev
}

func envSection(c *config) string {
	mode := "full"
	if c.quick {
		mode = "quick (-quick)"
	}
	src := c.hiveSrc
	if c.hiveBin != "" {
		src = ""
	}
	log := "hive over its SQLite log"
	if c.hiveStore != "" {
		log = fmt.Sprintf("hive as %d instance(s) over one PostgreSQL log (-hive-store)", c.hiveInstances)
	}
	return fmt.Sprintf("Run of %s: `uname -m` %s, %s, %d cores, %s; hive built from %s; %s. Mode: %s, %s stored events; the whole run took %s. hive and the peer (%s) ran one after the other on the same machine, each alone, sharing its cores with the benchmark client.\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), unameM(), cpuModel(), runtime.NumCPU(), runtime.Version(), hiveRevision(src), log, mode, fmtCount(c.stored), time.Since(logStart).Round(time.Second), c.peer)
}

const (
	beginMarker = "<!-- BEGIN RESULTS (written by `make bench`) -->"
	endMarker   = "<!-- END RESULTS -->"
)

// writeSection replaces what lies between the begin and end markers of the README at path.
func writeSection(path, begin, end, body string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no markers %s ... %s", path, begin, end)
	}
	out := s[:i+len(begin)] + "\n\n" + body + "\n" + s[j:]
	return os.WriteFile(path, []byte(out), 0o644)
}
