package hub

import "strings"

// table is one of the hub's tables beside the log.
type table struct {
	name string
	// columns, "name TYPE" each, comma-separated; the first key of them
	// are the primary key, and every other column is NOT NULL.
	columns string
	key     int
	// derived: a projection of the log. Rebuild empties and refills it and
	// replay --verify compares it, so its columns hold nothing that is not a
	// function of the log. Rebuild keeps the other tables.
	derived bool
}

var tables = []table{
	{name: "hub_members", columns: "pubkey TEXT, role TEXT, added_by TEXT", key: 1, derived: true},
	{name: "channels", columns: "id TEXT, name TEXT, about TEXT, visibility TEXT, type TEXT, creator TEXT, deleted INTEGER", key: 1, derived: true},
	// A channel's NIP-29 picture, beside its row (a table of its own, so a
	// log written before pictures needs no migration).
	{name: "channel_pictures", columns: "channel TEXT, picture TEXT", key: 1, derived: true},
	{name: "channel_members", columns: "channel TEXT, pubkey TEXT, role TEXT", key: 2, derived: true},
	{name: "agents", columns: "agent TEXT, owner TEXT, conditions TEXT", key: 1, derived: true},
	// The attested keys whose profile carries the ["device"] marker (paired
	// devices, spec/pairing.md); their owner and conditions are in agents.
	{name: "devices", columns: "device TEXT", key: 1, derived: true},
	{name: "revocations", columns: "owner TEXT, agent TEXT, revoked_at INTEGER", key: 2, derived: true},
	{name: "reactions", columns: "target TEXT, author TEXT, content TEXT, event_id TEXT", key: 3, derived: true},
	// The hub's name, description and icon set by NIP-86 calls (30461).
	{name: "hub_info", columns: "field TEXT, value TEXT", key: 1, derived: true},
	// The (owner, key) pairs of the attestations the hub has seen, at AUTH
	// or on a profile, so that a revocation's signer can be checked
	// (spec/identity.md) even for a key that never published a profile.
	{name: "attestations_seen", columns: "owner TEXT, agent TEXT", key: 2},
	// Every key a hub on this log has signed with (each instance records its
	// own at start), so the 8000s and 8001s a hub signed for invites and
	// leave requests (join.go) hold on replay, on another instance of a
	// shared log and after a new DATA/hub.key.
	{name: "hub_keys", columns: "pubkey TEXT", key: 1},
	// The keys each invite claim admitted (hub-signed 8000s naming it).
	{name: "invite_uses", columns: "claim TEXT, member TEXT", key: 2, derived: true},
	// The invite claims a hub admin revoked (kind 30451, invite_revoke.go).
	{name: "invite_revocations", columns: "claim TEXT", key: 1, derived: true},
	// The created_at of the hub's last state snapshot per channel, so each
	// new snapshot is strictly newer than the last.
	{name: "state_clock", columns: "channel TEXT, at INTEGER", key: 1},
}

// schema is the tables' DDL, plain SQL that SQLite and PostgreSQL both run.
var schema = tableDDL(tables)

// projectionTables are the derived tables, in schema order.
var projectionTables = derivedNames(tables)

// tableDDL writes CREATE TABLE IF NOT EXISTS for each table: a one-column
// key on its column, a longer one as a PRIMARY KEY clause.
func tableDDL(ts []table) []string {
	var out []string
	for _, t := range ts {
		cols := strings.Split(t.columns, ", ")
		for i := range cols {
			if i > 0 || t.key > 1 {
				cols[i] += " NOT NULL"
			}
		}
		if t.key == 1 {
			cols[0] += " PRIMARY KEY"
		} else {
			keys := make([]string, t.key)
			for i, c := range cols[:t.key] {
				keys[i], _, _ = strings.Cut(c, " ")
			}
			cols = append(cols, "PRIMARY KEY ("+strings.Join(keys, ", ")+")")
		}
		out = append(out, "CREATE TABLE IF NOT EXISTS "+t.name+" (\n\t"+strings.Join(cols, ",\n\t")+"\n)")
	}
	return out
}

func derivedNames(ts []table) []string {
	var out []string
	for _, t := range ts {
		if t.derived {
			out = append(out, t.name)
		}
	}
	return out
}
