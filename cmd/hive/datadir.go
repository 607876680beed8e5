package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/ainb/hive/client/tlspin"
	"github.com/spf13/cobra"
)

// dataDir is a hub's data directory; its methods name the files in it.
type dataDir string

// addDataFlag defines --data on cmd.
func addDataFlag(cmd *cobra.Command, d *dataDir, help string) {
	cmd.Flags().StringVar((*string)(d), "data", ".hive", help)
}

func (d dataDir) path(name string) string { return filepath.Join(string(d), name) }
func (d dataDir) db() string              { return d.path("hive.db") }
func (d dataDir) hubKey() string          { return d.path("hub.key") }
func (d dataDir) adminKey() string        { return d.path("admin.key") }
func (d dataDir) tlsCert() string         { return d.path(tlspin.CertFile) }
func (d dataDir) tlsKey() string          { return d.path(tlspin.KeyFile) }
func (d dataDir) serveState() string      { return d.path("serve.json") }

// lockFile is the file a running hub holds an exclusive flock on; it names
// the hub's pid.
func (d dataDir) lockFile() string { return d.path("hive.lock") }

// lock takes the data directory for this process, so a second hub never
// serves the same log beside it: the kernel drops the lock when the process
// ends, however it ends. The returned func releases it.
func (d dataDir) lock() (func(), error) {
	f, err := os.OpenFile(d.lockFile(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("data directory lock %s: %w", d.lockFile(), err)
		}
		holder := "another process"
		if pid := d.lockPID(); pid > 0 {
			holder = fmt.Sprintf("pid %d", pid)
		}
		return nil, withHint(exitWith(exitConflict, fmt.Errorf("data directory %s is in use by a running hub (%s)", d, holder)),
			"stop that hub first, or give this one another --data directory")
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// lockPID is the pid the lock file names (0 when it names none).
func (d dataDir) lockPID() int {
	b, err := os.ReadFile(d.lockFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// running reports the pid of the hub that holds the data directory's lock,
// or false when none does. It asks the kernel, not serve.json: a hub killed
// with -9 leaves serve.json naming a pid anyone may have later.
func (d dataDir) running() (int, bool) {
	f, err := os.Open(d.lockFile())
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, false
	}
	return d.lockPID(), true
}
