package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"net/http"
	"os"
	"path/filepath"
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
