package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgServer is the PostgreSQL server a -hive-store URL points at, when it runs on this machine
// behind a unix socket (as pgrun's cluster does): its processes' CPU time is read from /proc,
// and its backends' activity can be sampled (-pg-waits).
type pgServer struct {
	dsn        string
	postmaster int
}

// findPG finds the postmaster behind dsn through the lock file PostgreSQL keeps next to its
// unix socket (first line: the postmaster's pid).
func findPG(dsn string) (*pgServer, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(cfg.Host, "/") {
		return nil, fmt.Errorf("host %q is not a unix socket directory on this machine", cfg.Host)
	}
	lock := filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d.lock", cfg.Port))
	b, err := os.ReadFile(lock)
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("%s: no pid on its first line", lock)
	}
	return &pgServer{dsn: dsn, postmaster: pid}, nil
}

// cpu is the CPU time the PostgreSQL server used so far: the postmaster's own, that of the
// children it reaped (backends of closed connections), and that of its live children
// (backends, WAL writer, checkpointer, ...).
func (p *pgServer) cpu() time.Duration {
	f := procStat(p.postmaster)
	if len(f) < 15 {
		return 0
	}
	ticks := statInt(f, 11) + statInt(f, 12) + statInt(f, 13) + statInt(f, 14)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == p.postmaster {
			continue
		}
		if c := procStat(pid); len(c) >= 13 && statInt(c, 1) == int64(p.postmaster) {
			ticks += statInt(c, 11) + statInt(c, 12)
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// sampleWaits samples what the server's backends are doing (pg_stat_activity) every 10 ms
// until the returned function is called, which gives the average number of backends seen in
// each state: "client: on CPU", "client: idle in transaction" (a transaction waits for its
// client's next statement), "client: IO/WALSync", "walwriter: on CPU", ... Backends idle
// between transactions, and background processes in their main wait, are left out.
func (p *pgServer) sampleWaits(ctx context.Context) func() map[string]float64 {
	ctx, cancel := context.WithCancel(ctx)
	counts := map[string]int{}
	samples := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn, err := pgx.Connect(ctx, p.dsn)
		if err != nil {
			logf("postgres activity: %v", err)
			return
		}
		defer conn.Close(context.Background())
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			rows, err := conn.Query(ctx, `SELECT backend_type, COALESCE(application_name, ''), COALESCE(state, ''),
				COALESCE(wait_event_type, ''), COALESCE(wait_event, '') FROM pg_stat_activity WHERE pid <> pg_backend_pid()`)
			if err != nil {
				return
			}
			samples++
			for rows.Next() {
				var typ, app, state, wtype, wait string
				if rows.Scan(&typ, &app, &state, &wtype, &wait) != nil {
					continue
				}
				if k := activityLabel(typ, app, state, wtype, wait); k != "" {
					counts[k]++
				}
			}
			rows.Close()
		}
	}()
	return func() map[string]float64 {
		cancel()
		wg.Wait()
		out := map[string]float64{}
		for k, n := range counts {
			out[k] = float64(n) / float64(max(samples, 1))
		}
		return out
	}
}

// activityLabel names what one backend was doing, or "" for a process at rest.
func activityLabel(typ, app, state, wtype, wait string) string {
	who := typ
	if typ == "client backend" {
		who = "client"
		if app != "" {
			who = app
		}
	}
	switch {
	case state == "idle" || wtype == "Activity":
		return ""
	case state == "idle in transaction":
		return who + ": idle in transaction"
	case wtype == "":
		return who + ": on CPU"
	}
	return who + ": " + wtype + "/" + wait
}

// fmtActivity renders sampleWaits' averages, largest first.
func fmtActivity(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(m[b], m[a]) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.2f", k, m[k])
	}
	return strings.Join(parts, ", ")
}
