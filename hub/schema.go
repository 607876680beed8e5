package hub

// projectionTables are derived from the log: Rebuild empties and refills them,
// and replay --verify compares them. Their columns hold nothing that is not a
// function of the log.
var projectionTables = []string{"hub_members", "channels", "channel_pictures", "channel_members", "agents", "devices", "revocations", "reactions", "hub_info", "invite_uses", "invite_revocations"}

var schema = []string{
	`CREATE TABLE IF NOT EXISTS hub_members (
		pubkey   TEXT PRIMARY KEY,
		role     TEXT NOT NULL,
		added_by TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS channels (
		id         TEXT PRIMARY KEY,
		name       TEXT NOT NULL,
		about      TEXT NOT NULL,
		visibility TEXT NOT NULL,
		type       TEXT NOT NULL,
		creator    TEXT NOT NULL,
		deleted    INTEGER NOT NULL
	)`,
	// A channel's NIP-29 picture, beside its row (a table of its own, so a
	// log written before pictures needs no migration).
	`CREATE TABLE IF NOT EXISTS channel_pictures (
		channel TEXT PRIMARY KEY,
		picture TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS channel_members (
		channel TEXT NOT NULL,
		pubkey  TEXT NOT NULL,
		role    TEXT NOT NULL,
		PRIMARY KEY (channel, pubkey)
	)`,
	`CREATE TABLE IF NOT EXISTS agents (
		agent      TEXT PRIMARY KEY,
		owner      TEXT NOT NULL,
		conditions TEXT NOT NULL
	)`,
	// The attested keys whose profile carries the ["device"] marker (paired
	// devices, spec/pairing.md); their owner and conditions are in agents.
	`CREATE TABLE IF NOT EXISTS devices (
		device TEXT PRIMARY KEY
	)`,
	`CREATE TABLE IF NOT EXISTS revocations (
		owner      TEXT NOT NULL,
		agent      TEXT NOT NULL,
		revoked_at INTEGER NOT NULL,
		PRIMARY KEY (owner, agent)
	)`,
	`CREATE TABLE IF NOT EXISTS reactions (
		target   TEXT NOT NULL,
		author   TEXT NOT NULL,
		content  TEXT NOT NULL,
		event_id TEXT NOT NULL,
		PRIMARY KEY (target, author, content)
	)`,
	// The hub's name, description and icon set by NIP-86 calls (30461).
	`CREATE TABLE IF NOT EXISTS hub_info (
		field TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	// Not a projection: the (owner, key) pairs of the attestations the hub
	// has seen, at AUTH or on a profile, so that a revocation's signer can
	// be checked (spec/identity.md) even for a key that never published a
	// profile. Rebuild keeps it.
	`CREATE TABLE IF NOT EXISTS attestations_seen (
		owner TEXT NOT NULL,
		agent TEXT NOT NULL,
		PRIMARY KEY (owner, agent)
	)`,
	// Not a projection: every key a hub on this log has signed with (each
	// instance records its own at start), so the 8000s and 8001s a hub
	// signed for invites and leave requests (join.go) hold on replay, on
	// another instance of a shared log and after a new DATA/hub.key.
	// Rebuild keeps it.
	`CREATE TABLE IF NOT EXISTS hub_keys (
		pubkey TEXT PRIMARY KEY
	)`,
	// The keys each invite claim admitted (hub-signed 8000s naming it).
	`CREATE TABLE IF NOT EXISTS invite_uses (
		claim  TEXT NOT NULL,
		member TEXT NOT NULL,
		PRIMARY KEY (claim, member)
	)`,
	// The invite claims a hub admin revoked (kind 30451, invite_revoke.go).
	`CREATE TABLE IF NOT EXISTS invite_revocations (
		claim TEXT PRIMARY KEY
	)`,
	// Not a projection: the created_at of the hub's last state snapshot per
	// channel, so each new snapshot is strictly newer than the last.
	`CREATE TABLE IF NOT EXISTS state_clock (
		channel TEXT PRIMARY KEY,
		at      INTEGER NOT NULL
	)`,
}
