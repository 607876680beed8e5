package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fiatjaf/eventstore/sqlite3"
	"github.com/fiatjaf/khatru"
	"github.com/nbd-wtf/go-nostr"
)

// The peer relay: khatru over eventstore's sqlite3 backend, run by re-executing this binary
// as `bench peer`.

// peerDSN opens eventstore's sqlite3 backend in WAL mode. The pragmas are DSN parameters of
// mattn/go-sqlite3, so every pooled connection gets them (a PRAGMA after open would only
// reach one connection of database/sql's pool).
func peerDSN(path string) string {
	return "file:" + path + "?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000"
}

// newPeerTarget makes the peer the run asks for (-peer), and returns what waits for its
// preload. khatru's preload runs in this process while hive builds and imports: it is not
// timed, and it is finished before any of hive's workloads starts. strfry's is its own
// import, run in setup as hive's is (wait then returns at once).
func newPeerTarget(ctx context.Context, c *config, runDir, cacheDir, corpus string, meta *corpusMeta, res *results) (*target, func() error, error) {
	none := func() error { return nil }
	if !c.enabledTargets["peer"] {
		return nil, none, nil
	}
	res.peer = &serverResult{}
	dir := filepath.Join(runDir, "peer")
	os.MkdirAll(dir, 0o755)
	addr, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	switch c.peer {
	case "strfry":
		s, err := newStrfry(c.strfryBin, dir, addr, cacheDir, c.stored)
		if err != nil {
			return nil, nil, err
		}
		return newTarget("strfry", s), none, nil
	case "khatru":
	default:
		return nil, nil, fmt.Errorf("-peer %q: khatru or strfry", c.peer)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	peer := newTarget("peer", newPeer(self, dir, addr))
	done := make(chan error, 1)
	go func() {
		db := filepath.Join(dir, "peer.db")
		cached := filepath.Join(cacheDir, peerCacheName(c.stored), "peer.db")
		if cacheDir != "" && exists(cached) {
			logf("peer: using the cached preloaded database")
			res.peer.ImportCached = true
			done <- copyFile(cached, db)
			return
		}
		t0 := time.Now()
		logf("peer: importing %d stored events (in the background)", meta.N)
		err := peer.first().preload(ctx, corpus)
		res.peer.Import = time.Since(t0)
		logf("peer: imported in %s", res.peer.Import.Round(time.Millisecond))
		if err == nil && cacheDir != "" {
			if err := saveDirCache(dir, filepath.Dir(cached), ""); err != nil {
				logf("peer: caching the database: %v", err)
			}
		}
		done <- err
	}()
	var once sync.Once
	var importErr error
	wait := func() error {
		once.Do(func() {
			importErr = <-done
			peer.first().preload = nil // done
		})
		return importErr
	}
	return peer, wait, nil
}

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
