package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is one relay under test, run as its own process.
type server struct {
	// restore, when set, puts a cached preloaded database in place and reports whether it did
	restore func() bool
	// save, when set, caches the database right after the preload
	save func() error

	name    string
	dir     string // working directory for its data and logs
	addr    string
	cmd     *exec.Cmd
	logPath string

	// metrics is the address of its Prometheus /metrics ("" when it serves none)
	metrics string
	// dbFile is its SQLite database ("" over PostgreSQL, or for the peer): its WAL's
	// size is sampled during each workload (disk.go)
	dbFile string

	argv func() []string // command line to start it
	// prepare, when set, runs before every start (a second hive instance copies the first's keys)
	prepare func() error
	// preload imports the corpus while the server is stopped (untimed)
	preload func(ctx context.Context, corpus string) error
}

func (s *server) url() string { return "ws://" + s.addr }

func (s *server) pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (s *server) start(ctx context.Context) error {
	if s.prepare != nil {
		if err := s.prepare(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	argv := s.argv()
	logf("%s: starting %s", s.name, strings.Join(shortArgs(argv), " "))
	lf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = lf
	cmd.Stderr = lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return err
	}
	lf.Close()
	s.cmd = cmd
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s.cmd.Cancel = nil
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			s.cmd = nil
			return fmt.Errorf("%s exited at start (%v); log:\n%s", s.name, err, tail(s.logPath, 20))
		default:
		}
		c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			waiters[cmd] = exited
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.kill()
	return fmt.Errorf("%s did not listen on %s within 60s; log:\n%s", s.name, s.addr, tail(s.logPath, 20))
}

// waiters keeps the Wait result of each started process.
var waiters = map[*exec.Cmd]chan error{}

// stop sends SIGTERM and waits up to 15s, then SIGKILL.
func (s *server) stop() error {
	if s.cmd == nil {
		return nil
	}
	cmd := s.cmd
	s.cmd = nil
	exited := waiters[cmd]
	delete(waiters, cmd)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return nil
	case <-time.After(15 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		return fmt.Errorf("%s did not stop within 15s of SIGTERM", s.name)
	}
}

func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	if w, ok := waiters[s.cmd]; ok {
		<-w
		delete(waiters, s.cmd)
	}
	s.cmd = nil
}

// alive reports whether the server process is still running.
func (s *server) alive() bool {
	if s.cmd == nil {
		return false
	}
	select {
	case err := <-waiters[s.cmd]:
		waiters[s.cmd] <- err
		return false
	default:
		return true
	}
}

func shortArgs(a []string) []string {
	out := make([]string, len(a))
	for i, s := range a {
		out[i] = s
		if i == 0 {
			out[i] = filepath.Base(s)
		}
	}
	return out
}

func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
