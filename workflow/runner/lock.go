package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockName is the lock file in the state directory: one runner per key.
const lockName = "runner.lock"

// lockState takes the state directory's lock, or says which process holds
// it. The lock ends with the process, however it ends (kill -9 included).
func lockState(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state_dir %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state_dir %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.Read(b)
		f.Close()
		return nil, fmt.Errorf("another runner (pid %s) holds %s: one runner per key and state_dir; stop it first", string(b[:n]), dir)
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprint(os.Getpid())), 0)
	return f, nil
}
