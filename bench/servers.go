package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fiatjaf/eventstore/sqlite3"
	"github.com/fiatjaf/khatru"
	"github.com/nbd-wtf/go-nostr"
)

// peerDSN opens eventstore's sqlite3 backend in WAL mode. The pragmas are DSN parameters of
// mattn/go-sqlite3, so every pooled connection gets them (a PRAGMA after open would only
// reach one connection of database/sql's pool).
func peerDSN(path string) string {
	return "file:" + path + "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000"
}

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
	auth    authMode

	argv func() []string // command line to start it
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

// procMem reads VmRSS and VmHWM (KiB) of a process.
func procMem(pid int) (rss, hwm int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		field := func() int64 {
			fs := strings.Fields(line)
			if len(fs) < 2 {
				return 0
			}
			v, _ := strconv.ParseInt(fs[1], 10, 64)
			return v
		}
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			rss = field()
		case strings.HasPrefix(line, "VmHWM:"):
			hwm = field()
		}
	}
	return
}

// resetHWM resets VmHWM to the current RSS (Linux >= 4.0).
func resetHWM(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// ---- hive ----

func buildHive(ctx context.Context, src, out string) error {
	logf("hive: building %s with -tags libsecp256k1", filepath.Join(src, "cmd/hive"))
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "libsecp256k1", "-o", out, "./cmd/hive")
	cmd.Dir = src
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building hive: %w", err)
	}
	logf("hive: built in %s", time.Since(start).Round(time.Millisecond))
	return nil
}

func newHive(bin, dir, addr, pprofAddr, storeURL, cacheDir string, n int) *server {
	s := &server{name: "hive", dir: dir, addr: addr, logPath: filepath.Join(dir, "hive.log")}
	data := filepath.Join(dir, "data")
	if cacheDir != "" {
		if sum, err := fileSHA(bin); err == nil {
			entry := filepath.Join(cacheDir, hiveCachePrefix(n)+sum[:16])
			s.restore = func() bool {
				if !exists(filepath.Join(entry, "hive.db")) {
					return false
				}
				if err := copyDir(entry, data); err != nil {
					logf("hive: cached database unusable: %v", err)
					os.RemoveAll(data)
					return false
				}
				return true
			}
			s.save = func() error { return saveDirCache(data, entry, hiveCachePrefix(n)) }
		}
	}
	s.argv = func() []string {
		a := []string{bin, "serve", "--addr", addr, "--data", data, "--admin", adminPK, "--public-url", "ws://" + addr}
		if pprofAddr != "" {
			a = append(a, "--pprof", pprofAddr)
		}
		if storeURL != "" {
			a = append(a, "--store", storeURL)
		}
		return a
	}
	s.preload = func(ctx context.Context, corpus string) error {
		// the corpus was signed by this program and is not timed: skip re-verifying 1M
		// signatures (the peer's import does not verify either)
		args := []string{"import", "--skip-verify", "--data", data, corpus}
		if storeURL != "" {
			args = append(args, "--store", storeURL)
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		lf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer lf.Close()
		var out strings.Builder
		cmd.Stdout = &out
		cmd.Stderr = lf
		err = cmd.Run()
		fmt.Fprint(lf, out.String())
		if err != nil {
			return fmt.Errorf("hive import: %w; log:\n%s", err, tail(s.logPath, 20))
		}
		logf("hive import: %s", strings.TrimSpace(out.String()))
		return nil
	}
	return s
}

// ---- peer: khatru + eventstore sqlite3 ----

func newPeer(self, dir, addr string) *server {
	s := &server{name: "peer", dir: dir, addr: addr, logPath: filepath.Join(dir, "peer.log")}
	db := filepath.Join(dir, "peer.db")
	s.argv = func() []string { return []string{self, "peer", "--addr", addr, "--db", db} }
	s.preload = func(ctx context.Context, corpus string) error { return peerImport(ctx, db, corpus) }
	return s
}

// runPeer is `bench peer`: khatru v0.19.1 over eventstore's sqlite3 backend, no policies,
// so it accepts every valid event and never asks for AUTH.
func runPeer(args []string) error {
	fs := flag.NewFlagSet("peer", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:7777", "listen address")
	dbPath := fs.String("db", "peer.db", "sqlite3 database file")
	fs.Parse(args)

	db := &sqlite3.SQLite3Backend{DatabaseURL: peerDSN(*dbPath)}
	if err := db.Init(); err != nil {
		return err
	}
	defer db.Close()

	relay := khatru.NewRelay()
	relay.Info.Name = "khatru bench peer"
	relay.StoreEvent = append(relay.StoreEvent, db.SaveEvent)
	relay.QueryEvents = append(relay.QueryEvents, db.QueryEvents)
	relay.CountEvents = append(relay.CountEvents, db.CountEvents)
	relay.DeleteEvent = append(relay.DeleteEvent, db.DeleteEvent)
	relay.ReplaceEvent = append(relay.ReplaceEvent, db.ReplaceEvent)

	srv := &http.Server{Addr: *addr, Handler: relay}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	sig := make(chan os.Signal, 1)
	signalNotify(sig)
	select {
	case <-sig:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		return nil
	case err := <-errc:
		return err
	}
}

// peerImport preloads the corpus into the peer's database with the exact statement of
// eventstore's sqlite3 SaveEvent (INSERT OR IGNORE, tags as JSON), but inside transactions of
// 10,000 rows instead of one autocommit per event. The schema comes from the backend's Init.
func peerImport(ctx context.Context, dbPath, corpus string) error {
	b := &sqlite3.SQLite3Backend{DatabaseURL: peerDSN(dbPath)}
	if err := b.Init(); err != nil {
		return err
	}
	defer b.Close()
	var tx *sql.Tx
	var stmt *sql.Stmt
	begin := func() error {
		var err error
		tx, err = b.DB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmt, err = tx.Prepare(`INSERT OR IGNORE INTO event (id, pubkey, created_at, kind, tags, content, sig)
        VALUES ($1, $2, $3, $4, $5, $6, $7)`)
		return err
	}
	if err := begin(); err != nil {
		return err
	}
	n := 0
	err := readCorpus(corpus, func(ev *nostr.Event) error {
		tagsj, _ := json.Marshal(ev.Tags)
		if _, err := stmt.Exec(ev.ID, ev.PubKey, ev.CreatedAt, ev.Kind, tagsj, ev.Content, ev.Sig); err != nil {
			return err
		}
		n++
		if n%10000 == 0 {
			stmt.Close()
			if err := tx.Commit(); err != nil {
				return err
			}
			if err := begin(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tx.Rollback()
		return err
	}
	stmt.Close()
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := b.DB.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return err
	}
	var count int
	if err := b.DB.QueryRow(`SELECT count(*) FROM event`).Scan(&count); err != nil {
		return err
	}
	if count < n {
		return errors.New("peer import: rows missing after import")
	}
	return nil
}

// procCPU is the user+system CPU time a process used so far.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	// fields after the command name, which is in parentheses and may hold spaces
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// selfCPU is the CPU time the benchmark process itself used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy is the CPU time all processes of the machine used so far (from /proc/stat).
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return time.Duration(busy) * time.Second / 100
}

// waitQuiet waits, at most maxWait, until the processes other than the server and the benchmark
// use less than 20% of one core over a second, and returns the last share seen.
func waitQuiet(pid int, maxWait time.Duration) float64 {
	deadline := time.Now().Add(maxWait)
	for {
		m0, s0, p0 := machineBusy(), selfCPU(), procCPU(pid)
		time.Sleep(time.Second)
		others := (machineBusy() - m0) - (selfCPU() - s0) - (procCPU(pid) - p0)
		share := max(0, others.Seconds())
		if share < 0.2 || time.Now().After(deadline) {
			return share
		}
	}
}

// procWritten is the number of bytes a process passed to write-like syscalls so far (wchar in
// /proc/PID/io: files and sockets alike).
func procWritten(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
