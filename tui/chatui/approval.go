package chatui

import (
	"github.com/ainb/hive/client"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/nbd-wtf/go-nostr"
)

// approvalKey decides a workflow's approval request (spec/workflows.md,
// "Approval gates") on the selected row: a reacts ✅, d reacts ❌, when the
// row is a request that mentions the member. ok is false for any other key
// or row (the key goes on as typing).
func (m *Model) approvalKey(k tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	emoji := map[string]string{"a": client.ApproveEmoji, "d": client.DenyEmoji}[k.String()]
	if emoji == "" || m.selected == "" {
		return nil, false
	}
	ev, found := m.s.Event(m.selected)
	if !found || !m.asksMe(ev) {
		return nil, false
	}
	word := "approved"
	if emoji == client.DenyEmoji {
		word = "denied"
	}
	return m.publishing(client.Reaction(ev, emoji), word+" (the runner's record follows on the run's card)", doneMsg{}), true
}

// asksMe: ev is an approval request that mentions the member.
func (m *Model) asksMe(ev nostr.Event) bool {
	if t := ev.Tags.Find(client.ApprovalTag); len(t) < 3 {
		return false
	}
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == "p" && m.chat().Own(t[1]) {
			return true
		}
	}
	return false
}
