package test

import (
	"database/sql"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// TestMigrateToPostgres: a SQLite hub with members, channels, messages, a
// thread, reactions, an agent, a revocation and a removal is stopped and
// copied into PostgreSQL with `hive admin migrate`; every event is copied,
// `hive admin replay --verify --store` finds no difference, the projections
// equal the SQLite hub's row for row, and a hub serving the PostgreSQL log
// admits the same people.
func TestMigrateToPostgres(t *testing.T) {
	dsn := pg.DSN(t)
	h := startHubProc(t)
	w := startWriteTeam(t, h)
	root := w.a.must(w.alice.sign(t, 9, "root", nostr.Tag{"h", "pub"}))
	reply := w.b.must(w.bob.sign(t, 9, "reply", nostr.Tag{"h", "pub"}, nostr.Tag{"e", root.ID, "", "root"}))
	w.b.must(w.bob.sign(t, 7, "+", nostr.Tag{"e", root.ID}))
	w.a.must(w.alice.sign(t, 9000, "", nostr.Tag{"h", "priv"}, nostr.Tag{"p", w.bob.pk, "member"}))
	w.b.must(w.bob.sign(t, 9, "secret", nostr.Tag{"h", "priv"}))
	w.b.must(w.bob.sign(t, 5, "", nostr.Tag{"e", reply.ID}))
	agent, _, _ := namedAgentOf(t, h, w.alice, "bot")
	ak, _ := identity.KeysFromSecretHex(w.alice.sk)
	rev, _ := identity.NewRevocation(ak, agent.pk, "", time.Now().Unix())
	w.a.must(rev)
	h.as(t, h.admin).must(h.admin.sign(t, 8001, "", nostr.Tag{"p", w.mallory.pk}))
	h.stop(t, syscall.SIGTERM)

	out, code := hiveExit(t, "admin", "migrate", "--from", h.data, "--to", dsn, "--admin", h.admin.pk, "--json")
	var res struct {
		Copied  int      `json:"copied"`
		Refused []string `json:"refused"`
	}
	if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &res); err != nil || code != 0 || len(res.Refused) != 0 || res.Copied == 0 {
		t.Fatalf("migrate: exit %d, %v\n%s", code, err, out)
	}
	src := (&closedHub{Path: h.data + "/hive.db"}).rawDB(t)
	defer src.Close()
	dst := (&closedHub{DSN: dsn}).rawDB(t)
	defer dst.Close()
	// Every event not signed by the hub is there, under the same id; the
	// hub-signed ones were signed anew, one for one.
	hubKey := ""
	src.QueryRow(`SELECT pubkey FROM events WHERE kind = 39000 LIMIT 1`).Scan(&hubKey)
	count := func(db *sql.DB, q string) (n int) {
		if err := db.QueryRow(q, hubKey).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, m := count(src, `SELECT COUNT(*) FROM events WHERE pubkey <> ?`), count(dst, `SELECT COUNT(*) FROM events WHERE pubkey <> $1`); n != m || m != res.Copied {
		t.Fatalf("SQLite log has %d client events, PostgreSQL %d, migrate reported %d copied", n, m, res.Copied)
	}
	if n, m := count(src, `SELECT COUNT(*) FROM events WHERE pubkey = ?`), count(dst, `SELECT COUNT(*) FROM events WHERE pubkey = $1`); n != m || n == 0 {
		t.Fatalf("SQLite log has %d hub-signed events, PostgreSQL %d", n, m)
	}
	if a, b := dumpProjectionsOf(t, src), dumpProjectionsOf(t, dst); a != b {
		t.Fatalf("projections differ after migrate:\nSQLite:\n%s\nPostgreSQL:\n%s", a, b)
	}
	out, code = hiveExit(t, "admin", "replay", "--verify", "--store", dsn, "--admin", h.admin.pk, "--json")
	if code != 0 || !strings.Contains(out, `"ok": true`) && !strings.Contains(out, `"ok":true`) {
		t.Fatalf("replay --verify --store: exit %d\n%s", code, out)
	}
	// A hub on the PostgreSQL log admits bob and refuses the removed mallory.
	data := t.TempDir()
	key, _ := os.ReadFile(h.data + "/hub.key")
	os.WriteFile(data+"/hub.key", key, 0o600)
	p := &procHub{hubProc: startProc(t, data, freeAddr(t), "--admin", h.admin.pk, "--store", dsn), data: data, admin: h.admin, store: []string{"--store", dsn}}
	p.as(t, w.bob)
	notAdmitted(t, dialRaw(t, p.URL), w.mallory, p.URL) // removed: a NIP-43 guest
}
