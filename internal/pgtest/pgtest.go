// Package pgtest runs a throwaway PostgreSQL cluster for tests: initdb into a
// temporary directory, the server listening only on a unix socket inside it,
// one fresh database per test, and the whole cluster removed at the end.
//
// Use it from TestMain:
//
//	var pg *pgtest.Cluster
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &pg)) }
//
// and pg.DSN(t) in a test. When no PostgreSQL binaries are installed the tests
// that need them skip with the reason, unless HIVE_REQUIRE_POSTGRES is set
// (CI sets it), in which case they fail.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	dir     string // data directory and socket directory live under it
	bin     string // directory of initdb, pg_ctl and postgres
	cred    *syscall.Credential
	durable bool
	srv     *exec.Cmd
	exited  chan error
	absent  string // why there is no cluster ("" when it runs)
	failed  error  // why starting it failed
	counter atomic.Int64
}

// Main starts a cluster, runs the tests, stops the cluster and returns the
// exit code. *c is set even when PostgreSQL is absent or failed to start, so
// DSN can explain why.
func Main(m *testing.M, c **Cluster) int {
	cl := Start()
	*c = cl
	code := m.Run()
	cl.Stop()
	return code
}

// Start starts a cluster. It never returns nil: a cluster that could not
// start remembers why, and DSN reports it. Its commits are not flushed to
// disk (fsync off): tests kill clients, never the machine.
func Start() *Cluster { return start(false) }

// StartDurable starts a cluster that flushes every commit to disk like a
// production server (fsync, synchronous_commit on), for benchmarks.
func StartDurable() *Cluster { return start(true) }

func start(durable bool) *Cluster {
	c := &Cluster{durable: durable}
	bin, err := findBin()
	if err != nil {
		c.absent = err.Error()
		return c
	}
	c.bin = bin
	if err := c.start(); err != nil {
		c.failed = err
		c.Stop()
	}
	return c
}

// findBin finds the directory holding initdb, pg_ctl and postgres: on PATH,
// or under Debian's /usr/lib/postgresql/<version>/bin (newest version first).
func findBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dir = filepath.Dir(real)
		}
		if _, err := os.Stat(filepath.Join(dir, "pg_ctl")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin; on Debian: apt-get install postgresql)")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// start runs initdb, then the server as a child process that is told to
// quit if this process dies (so a killed test leaves no server behind).
// PostgreSQL refuses to run as root, so as root both run as the unprivileged
// user nobody, who owns the directory.
func (c *Cluster) start() error {
	parent := ""
	if os.Geteuid() == 0 {
		parent = "/tmp" // TMPDIR may sit where nobody cannot reach
	}
	dir, err := os.MkdirTemp(parent, "hive-pg-")
	if err != nil {
		return err
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return fmt.Errorf("running PostgreSQL as root is refused and there is no user nobody: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
	}
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if out, err := c.command(ctx, "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	logf, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	// Only a unix socket in dir (no TCP port to collide with anyone).
	args := []string{"-D", data, "-c", "listen_addresses=", "-c", "unix_socket_directories=" + dir, "-c", "max_connections=300"}
	if c.durable {
		args = append(args, "-c", "shared_buffers=256MB")
	} else {
		args = append(args, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off", "-c", "shared_buffers=32MB")
	}
	srv := c.command(context.Background(), "postgres", args...)
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := srv.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	c.srv = srv
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	c.exited = exited
	for {
		conn, err := pgx.Connect(ctx, c.admin("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case err := <-exited:
			c.srv = nil
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			return fmt.Errorf("postgres exited: %v\n%s", err, log)
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			return fmt.Errorf("postgres did not accept connections in time: %v\n%s", err, log)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

// Stop stops the server (immediate shutdown: nothing to keep) and removes
// its files.
func (c *Cluster) Stop() {
	if c == nil || c.dir == "" {
		return
	}
	if c.srv != nil {
		c.srv.Process.Signal(syscall.SIGQUIT)
		select {
		case <-c.exited:
		case <-time.After(20 * time.Second):
			c.srv.Process.Kill()
			<-c.exited
		}
		c.srv = nil
	}
	os.RemoveAll(c.dir)
	c.dir = ""
}

// admin is the DSN of the cluster's postgres database.
func (c *Cluster) admin(db string) string {
	q := url.Values{"host": {c.dir}, "user": {"postgres"}, "sslmode": {"disable"}}
	return "postgres:///" + db + "?" + q.Encode()
}

// DSN creates a fresh, empty database for t and returns its connection URL;
// the database is dropped when t ends. It skips t (or fails it, when
// HIVE_REQUIRE_POSTGRES is set) if PostgreSQL is not installed.
func (c *Cluster) DSN(t testing.TB) string {
	t.Helper()
	c.check(t)
	return c.Named(t, fmt.Sprintf("t%d_%d", os.Getpid(), c.counter.Add(1)))
}

// Named returns the connection URL of the database called name, creating it
// if it does not exist yet, so a test can stop a server and start another on
// the same database; it is dropped when t ends. name must be a plain
// identifier (letters, digits, underscores).
func (c *Cluster) Named(t testing.TB, name string) string {
	t.Helper()
	c.check(t)
	dsn, created, err := c.CreateDB(name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if created {
		t.Cleanup(func() { c.drop(name) })
	}
	return dsn
}

// CreateDB creates the database name unless it exists, and returns its
// connection URL and whether it created it.
func (c *Cluster) CreateDB(name string) (dsn string, created bool, err error) {
	if !c.Available() {
		return "", false, fmt.Errorf("no cluster: %s", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.admin("postgres"))
	if err != nil {
		return "", false, fmt.Errorf("connecting to the cluster: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", false, err
	}
	if !exists {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
			return "", false, fmt.Errorf("creating database: %w", err)
		}
	}
	return c.admin(name), !exists, nil
}

// Absent is why there is no PostgreSQL to start ("" when it is installed).
func (c *Cluster) Absent() string { return c.absent }

func (c *Cluster) drop(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(ctx, c.admin("postgres")); err == nil {
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		conn.Close(ctx)
	}
}

// check skips or fails t when there is no cluster.
func (c *Cluster) check(t testing.TB) {
	t.Helper()
	switch {
	case c == nil:
		t.Fatal("pgtest: no cluster; call pgtest.Main from TestMain")
	case c.absent != "" && os.Getenv("HIVE_REQUIRE_POSTGRES") != "":
		t.Fatalf("HIVE_REQUIRE_POSTGRES is set but %s", c.absent)
	case c.absent != "":
		t.Skip("skipping: " + c.absent)
	case c.failed != nil:
		t.Fatalf("pgtest: could not start a PostgreSQL cluster: %v", c.failed)
	}
}

// Available reports whether the cluster runs (for tests that branch on it).
func (c *Cluster) Available() bool { return c != nil && c.absent == "" && c.failed == nil }

// String describes the cluster for test logs.
func (c *Cluster) String() string {
	if !c.Available() {
		return "no PostgreSQL: " + strings.TrimSpace(c.absent+" "+fmt.Sprint(c.failed))
	}
	return "PostgreSQL cluster in " + c.dir
}
