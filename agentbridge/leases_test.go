package agentbridge

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// leaseRunner is the part of a runner the leases need, on state dir dir.
func leaseRunner(t *testing.T, dir string, agent identity.Keys, owner string) *runner {
	t.Helper()
	st, err := OpenState(dir, "helper", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{state: st, keys: agent, owner: owner, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r.obs = newObserver([32]byte{}, owner, nil)
	r.restoreLeases()
	return r
}

func keysOf(r *runner, now time.Time) []string {
	var out []string
	for _, to := range r.obs.recipients(now) {
		out = append(out, to.pk)
	}
	slices.Sort(out)
	return out
}

// A device's watch lease is kept in the state dir: the next run (as after
// kill -9) seals frames to the device at once, with the device's
// conversation key, until the lease ends; a lease that ended, the owner's
// key, a key that is not one and a lease beyond WatchLease are not taken
// back, and a corrupt file is no lease.
func TestLeasesOutliveTheBridge(t *testing.T) {
	dir := t.TempDir()
	agent, _ := identity.GenerateKeys()
	owner, phone, tablet := nostr.GeneratePrivateKey(), nostr.GeneratePrivateKey(), nostr.GeneratePrivateKey()
	ownerPK, _ := nostr.GetPublicKey(owner)
	phonePK, _ := nostr.GetPublicKey(phone)
	tabletPK, _ := nostr.GetPublicKey(tablet)
	now := time.Now()

	first := leaseRunner(t, dir, agent, ownerPK)
	ck, _ := nip44.GenerateConversationKey(phonePK, agent.SecretHex)
	first.obs.watch(phonePK, ck, now.Add(5*time.Minute))
	first.obs.watch(tabletPK, ck, now.Add(5*time.Minute))
	first.obs.unwatch(tabletPK) // the hub refused a frame to it

	next := leaseRunner(t, dir, agent, ownerPK)
	want := []string{ownerPK, phonePK}
	slices.Sort(want)
	if got := keysOf(next, now); !slices.Equal(got, want) {
		t.Fatalf("recipients after a restart: %v, want the owner and the phone", got)
	}
	for _, to := range next.obs.recipients(now) {
		if to.pk == phonePK && to.convKey != ck {
			t.Fatal("the restored lease seals with another key than the device's conversation key")
		}
	}
	if got := keysOf(next, now.Add(6*time.Minute)); !slices.Equal(got, []string{ownerPK}) {
		t.Fatalf("recipients once the lease ended: %v", got)
	}
	if got := keysOf(leaseRunner(t, dir, agent, ownerPK), now); !slices.Equal(got, []string{ownerPK}) {
		t.Fatalf("an ended lease came back: %v", got)
	}

	path := filepath.Join(dir, "helper", leaseFile)
	bad, _ := json.Marshal(map[string]int64{ownerPK: now.Add(time.Minute).Unix(), "not-a-key": now.Add(time.Minute).Unix(),
		phonePK: now.Add(time.Hour).Unix(), tabletPK: now.Add(-time.Minute).Unix()})
	os.WriteFile(path, bad, 0o600)
	if got := keysOf(leaseRunner(t, dir, agent, ownerPK), now); !slices.Equal(got, []string{ownerPK}) {
		t.Fatalf("recipients from a file of leases that are not to be taken back: %v", got)
	}
	os.WriteFile(path, []byte("{corrupt"), 0o600)
	if got := keysOf(leaseRunner(t, dir, agent, ownerPK), now); !slices.Equal(got, []string{ownerPK}) {
		t.Fatalf("recipients from a corrupt file: %v", got)
	}
}
