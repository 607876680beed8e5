package agentbridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	obs "github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// leaseFile, in the agent's state directory, keeps the watch leases of the
// owner's paired devices (device key -> lease end, unix seconds), so that a
// bridge that restarts, even after kill -9, sends frames to the devices
// that watched it at once, before their next watch frame (spec/agents.md,
// "Devices watch by lease").
const leaseFile = "leases.json"

// restoreLeases makes the observer keep its leases in the state directory
// and takes back those of the previous run that still run. A missing or
// unreadable file is no lease: watchers renew theirs when the bridge's
// status shows its new connection. The hub still refuses frames to a
// device whose attestation no longer stands, which ends its lease.
func (r *runner) restoreLeases() {
	path := filepath.Join(r.state.Dir(), leaseFile)
	saved := map[string]int64{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &saved); err != nil {
			r.log.Warn("ignoring the saved watch leases", "file", path, "err", err)
		}
	}
	now := time.Now()
	leases := map[string]lease{}
	for pk, until := range saved {
		end := time.Unix(until, 0)
		if !nostr.IsValid32ByteHex(pk) || pk == r.owner || !end.After(now) || end.After(now.Add(obs.WatchLease+time.Minute)) {
			continue
		}
		ck, err := nip44.GenerateConversationKey(pk, r.keys.SecretHex)
		if err != nil {
			continue
		}
		leases[pk] = lease{convKey: ck, until: end}
	}
	r.obs.keepLeases(path, leases)
	if len(leases) > 0 {
		r.log.Info("paired devices still watch the agent (leases kept from the last run)", "devices", len(leases))
	}
}

// keepLeases starts with leases and keeps every later change in the file
// at path.
func (o *observer) keepLeases(path string, leases map[string]lease) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.store = path
	for pk, l := range leases {
		o.watchers[pk] = l
	}
	o.saveLeasesLocked()
}

// saveLeasesLocked writes the leases (o.mu held): a temporary file, then a
// rename. Losing it costs only the time until the devices renew.
func (o *observer) saveLeasesLocked() {
	if o.store == "" {
		return
	}
	out := make(map[string]int64, len(o.watchers))
	for pk, l := range o.watchers {
		out[pk] = l.until.Unix()
	}
	b, _ := json.Marshal(out)
	tmp := o.store + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		os.Rename(tmp, o.store)
	}
}
