package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func buildHive(ctx context.Context, src, out string) error {
	logf("hive: building %s with -tags libsecp256k1,sqlite_fts5", filepath.Join(src, "cmd/hive"))
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "libsecp256k1,sqlite_fts5", "-o", out, "./cmd/hive")
	cmd.Dir = src
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building hive: %w", err)
	}
	logf("hive: built in %s", time.Since(start).Round(time.Millisecond))
	return nil
}

// newHiveTarget is hive as the benchmark runs it: one instance, or, over a shared PostgreSQL
// log (storeURL), several instances on loopback, each on its own port and data directory and
// with the first one's keys, as the README's "Running several instances" sets them up. Setup
// (channels, preload, cache) goes through the first instance; pprofAddr applies to it alone.
func newHiveTarget(bin, dir, pprofAddr, storeURL, cacheDir string, n, instances int) (*target, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	first, err := newHive(bin, dir, addr, pprofAddr, storeURL, cacheDir, n)
	if err != nil {
		return nil, err
	}
	t := newTarget("hive", first)
	for k := 2; k <= instances; k++ {
		addr, err := freePort()
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("hive-%d", k)
		data := filepath.Join(dir, "data-"+strconv.Itoa(k))
		metrics, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &server{name: name, dir: dir, addr: addr, metrics: metrics, logPath: filepath.Join(dir, name+".log")}
		s.argv = func() []string { return serveArgs(bin, addr, metrics, data, "", storeURL) }
		s.prepare = func() error {
			if err := os.MkdirAll(data, 0o700); err != nil {
				return err
			}
			// the hub signs what it derives with its own key: every instance needs the same one
			key := filepath.Join(data, "hub.key")
			if exists(key) {
				return nil
			}
			return copyFile(filepath.Join(dir, "data", "hub.key"), key)
		}
		t.servers = append(t.servers, s)
	}
	return t, nil
}

// serveArgs is hive serve's command line, with its Prometheus /metrics on metricsAddr (where
// the benchmark reads the garbage collector's CPU).
func serveArgs(bin, addr, metricsAddr, data, pprofAddr, storeURL string) []string {
	// The workloads open thousands of connections as one key: lift the
	// per-member cap (the per-member memory bounds stay).
	a := []string{bin, "serve", "--addr", addr, "--data", data, "--admin", adminPK, "--public-url", "ws://" + addr, "--max-conns-per-member", "1000000", "--metrics", metricsAddr}
	if pprofAddr != "" {
		a = append(a, "--pprof", pprofAddr)
	}
	if storeURL != "" {
		a = append(a, "--store", storeURL)
	}
	return a
}

func newHive(bin, dir, addr, pprofAddr, storeURL, cacheDir string, n int) (*server, error) {
	metrics, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{name: "hive", dir: dir, addr: addr, metrics: metrics, logPath: filepath.Join(dir, "hive.log")}
	data := filepath.Join(dir, "data")
	if storeURL == "" {
		s.dbFile = filepath.Join(data, "hive.db")
	}
	s.restore, s.save = dbCache("hive", bin, cacheDir, hiveCachePrefix(n), data, "hive.db")
	s.argv = func() []string { return serveArgs(bin, addr, metrics, data, pprofAddr, storeURL) }
	s.preload = func(ctx context.Context, corpus string) error {
		// the corpus was signed by this program and is not timed: skip re-verifying 1M
		// signatures (the peer's import does not verify either)
		args := []string{"import", "--skip-verify", "--data", data, corpus}
		if storeURL != "" {
			args = append(args, "--store", storeURL)
		}
		out, err := runLogged(exec.CommandContext(ctx, bin, args...), s.logPath)
		if err != nil {
			return fmt.Errorf("hive import: %w; log:\n%s", err, tail(s.logPath, 20))
		}
		logf("hive import: %s", strings.TrimSpace(out))
		return nil
	}
	return s, nil
}

// runLogged runs cmd with its standard error, then its standard output, appended to the log at
// logPath, and returns the standard output.
func runLogged(cmd *exec.Cmd, logPath string) (string, error) {
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return "", err
	}
	defer lf.Close()
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = lf
	err = cmd.Run()
	fmt.Fprint(lf, out.String())
	return out.String(), err
}
