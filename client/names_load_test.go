package client_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
)

// LoadNames asks again for the owners of agents it met, and must do so in a
// slice of its own: it wrote them over its caller's keys, so `hive who`
// listed an agent's owner twice and left the agent out (real hub).
func TestLoadNamesKeepsCallersKeys(t *testing.T) {
	th, admin := startHubAdmin(t)
	bob := th.member(t, admin)
	agent := newKeys(t)
	now := time.Now().Unix()
	tag, err := identity.Attest(th.admin.SecretHex, agent.PublicHex, identity.Conditions{}.WithNotBefore(now-60).WithExpiry(now+3600))
	if err != nil {
		t.Fatal(err)
	}
	ag := connect(t, th.URL, agent, client.Options{AuthTag: tag})
	if _, err := ag.Publish(ctxT(t, 5*time.Second), client.AgentProfile("helper", "", tag)); err != nil {
		t.Fatal(err)
	}
	keys := []string{agent.PublicHex, bob.PublicHex}
	want := slices.Clone(keys)
	m := admin.NewModel()
	if err := admin.LoadNames(ctxT(t, 5*time.Second), m, keys...); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("LoadNames changed its caller's keys: %v, was %v (the agent's owner is %s)", keys, want, th.admin.PublicHex)
	}
	if !m.Names().IsAgent(agent.PublicHex) || m.Names().Owner(agent.PublicHex) != th.admin.PublicHex {
		t.Fatalf("agent not named as the admin's agent: %q", m.Names().Name(agent.PublicHex))
	}
}
