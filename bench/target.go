package main

import (
	"context"
	"errors"
	"time"
)

// target is one relay under test: a single server process, or several hive instances over
// one shared PostgreSQL log. Workloads reach it through its URLs (spreading their connections
// over them in turn) and measure it through its processes, summed.
type target struct {
	name    string
	servers []*server
	// auth is shared: every instance of a target challenges alike
	auth authMode
	// db, when set, is the PostgreSQL server the instances share, measured next to them
	db *pgServer
}

func newTarget(name string, servers ...*server) *target {
	return &target{name: name, servers: servers}
}

// first is the server that setup (channel creation, preload, cache) goes through.
func (t *target) first() *server { return t.servers[0] }

func (t *target) urls() []string {
	out := make([]string, len(t.servers))
	for i, s := range t.servers {
		out[i] = s.url()
	}
	return out
}

func (t *target) pids() []int {
	out := make([]int, 0, len(t.servers))
	for _, s := range t.servers {
		if p := s.pid(); p != 0 {
			out = append(out, p)
		}
	}
	return out
}

// start starts every server in order; if one fails, the ones already started are stopped.
func (t *target) start(ctx context.Context) error {
	for i, s := range t.servers {
		if err := s.start(ctx); err != nil {
			for _, up := range t.servers[:i] {
				up.kill()
			}
			return err
		}
	}
	return nil
}

// stop stops every server (SIGTERM, then SIGKILL after 15 s) and reports what went wrong.
func (t *target) stop() error {
	var errs []error
	for _, s := range t.servers {
		errs = append(errs, s.stop())
	}
	return errors.Join(errs...)
}

func (t *target) kill() {
	for _, s := range t.servers {
		s.kill()
	}
}

// dead is the first server that is not running, or nil.
func (t *target) dead() *server {
	for _, s := range t.servers {
		if !s.alive() {
			return s
		}
	}
	return nil
}

// mem sums VmRSS and VmHWM (KiB) over the servers.
func (t *target) mem() (rss, hwm int64) {
	for _, p := range t.pids() {
		r, h := procMem(p)
		rss += r
		hwm += h
	}
	return rss, hwm
}

// resetHWM resets every server's VmHWM to its current RSS.
func (t *target) resetHWM() error {
	var errs []error
	for _, p := range t.pids() {
		errs = append(errs, resetHWM(p))
	}
	return errors.Join(errs...)
}

// cpu is the CPU time the servers used so far.
func (t *target) cpu() time.Duration {
	var d time.Duration
	for _, p := range t.pids() {
		d += procCPU(p)
	}
	return d
}

// dbCPU is the CPU time the shared PostgreSQL server used so far (0 without one).
func (t *target) dbCPU() time.Duration {
	if t.db == nil {
		return 0
	}
	return t.db.cpu()
}

// stored is what the servers caused to be written to storage so far.
func (t *target) stored() int64 {
	var n int64
	for _, p := range t.pids() {
		n += procStored(p)
	}
	return n
}

// written is what the servers passed to write-like syscalls so far.
func (t *target) written() int64 {
	var n int64
	for _, p := range t.pids() {
		n += procWritten(p)
	}
	return n
}
