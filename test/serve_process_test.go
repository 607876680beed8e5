package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stop sends sig to the hub and waits for it to exit; a graceful stop exits
// 0 (systemd marks a unit whose main process exits non-zero as failed).
func (p *hubProc) stop(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hive serve after %v: %v, want exit 0:\n%s", sig, err, p.logs())
		}
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("hive serve did not stop within 60 s of %v:\n%s", sig, p.logs())
	}
}

// TestServeStopsCleanly: SIGTERM and SIGINT stop `hive serve` with exit 0,
// with a member connected and the TLS and metrics listeners up, and the hub
// starts again on the same data (before the fix every clean stop ended in
// "panic: close of closed channel" and exit 2).
func TestServeStopsCleanly(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			admin := newKey(t)
			data := filepath.Join(t.TempDir(), "hub")
			addr := freeAddr(t)
			p := startProc(t, data, addr, "--admin", admin.pk, "--metrics", freeAddr(t))
			c := p.as(t, admin)
			if ok, msg := c.publish(admin.sign(t, 1, "before the stop")); !ok {
				t.Fatalf("publish: %s", msg)
			}
			p.stop(t, sig)
			p = startProc(t, data, addr, "--admin", admin.pk)
			p.as(t, admin)
			p.stop(t, sig)
		})
	}
}

// TestDataDirLock: a second `hive serve` on a data directory a live hub
// holds fails at once with exit 5 and an error naming the live hub's pid; it
// leaves serve.json alone, so `hive status --data` still reports the live
// hub running, and the live hub keeps serving. Once the first hub stops, the
// directory can be served again. (Before the fix the second hub started on
// the same log and overwrote serve.json.)
func TestDataDirLock(t *testing.T) {
	admin := newKey(t)
	data := filepath.Join(t.TempDir(), "hub")
	addr := freeAddr(t)
	p := startProc(t, data, addr, "--admin", admin.pk)
	before, err := os.ReadFile(filepath.Join(data, "serve.json"))
	if err != nil {
		t.Fatal(err)
	}

	second := exec.Command(binary(t), "serve", "--data", data, "--addr", freeAddr(t), "--admin", admin.pk)
	var out bytes.Buffer
	second.Stdout, second.Stderr = &out, &out
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 5 {
			t.Fatalf("second hive serve on the same data: %v, want exit 5:\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		second.Process.Kill()
		t.Fatalf("a second hive serve on the same data directory kept running:\n%s", out.String())
	}
	want := fmt.Sprintf("data directory %s is in use by a running hub (pid %d)", data, p.cmd.Process.Pid)
	if !strings.Contains(out.String(), want) {
		t.Fatalf("second hive serve said:\n%s\nwant it to contain %q", out.String(), want)
	}
	after, err := os.ReadFile(filepath.Join(data, "serve.json"))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("serve.json changed by the refused start (err %v):\nbefore %s\nafter  %s", err, before, after)
	}
	st, code := hiveExit(t, "status", "--data", data, "--json")
	var status struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	}
	if code != 0 || json.Unmarshal([]byte(st), &status) != nil || !status.Running || status.PID != p.cmd.Process.Pid {
		t.Fatalf("hive status --data after the refused start (exit %d): %s, want running pid %d", code, st, p.cmd.Process.Pid)
	}
	c := p.as(t, admin)
	if ok, msg := c.publish(admin.sign(t, 1, "still serving")); !ok {
		t.Fatalf("the live hub after the refused start: %s", msg)
	}

	p.stop(t, syscall.SIGTERM)
	p = startProc(t, data, addr, "--admin", admin.pk)
	p.as(t, admin)
}

// TestStatusTrustsTheLock: `hive status --data` decides whether the hub runs
// by the data directory's lock, not by serve.json's pid. A hub killed with
// -9 leaves serve.json behind, and its pid may be a live process of anyone
// later (here a sleep the test starts): status must say "not running"; and a
// running hub whose serve.json is gone is still running, by the lock's pid.
// (Before the fix the first case reported the sleep as the running hub and
// the second "not running".)
func TestStatusTrustsTheLock(t *testing.T) {
	admin := newKey(t)
	data := filepath.Join(t.TempDir(), "hub")
	p := startProc(t, data, freeAddr(t), "--admin", admin.pk)
	status := func() (running bool, pid int, human string) {
		t.Helper()
		st, code := hiveExit(t, "status", "--data", data, "--json")
		var s struct {
			Running bool `json:"running"`
			PID     int  `json:"pid"`
		}
		if code != 0 || json.Unmarshal([]byte(st), &s) != nil {
			t.Fatalf("hive status --data --json: exit %d: %s", code, st)
		}
		h, _ := hiveExit(t, "status", "--data", data)
		return s.Running, s.PID, h
	}
	if err := os.Remove(filepath.Join(data, "serve.json")); err != nil {
		t.Fatal(err)
	}
	if running, pid, h := status(); !running || pid != p.cmd.Process.Pid || !strings.Contains(h, fmt.Sprintf("running (pid %d", pid)) {
		t.Fatalf("live hub without serve.json: running=%v pid=%d, want pid %d:\n%s", running, pid, p.cmd.Process.Pid, h)
	}

	p.stop(t, syscall.SIGTERM)
	p = startProc(t, data, freeAddr(t), "--admin", admin.pk)
	p.kill9()
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	b, err := os.ReadFile(filepath.Join(data, "serve.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st["pid"] = other.Process.Pid // the dead hub's pid, reused
	b, _ = json.Marshal(st)
	if err := os.WriteFile(filepath.Join(data, "serve.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if running, pid, h := status(); running || pid != 0 || !strings.Contains(h, "hub:      not running") {
		t.Fatalf("after kill -9, with serve.json's pid alive as another process: running=%v pid=%d:\n%s", running, pid, h)
	}
}
