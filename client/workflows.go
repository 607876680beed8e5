package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Workflow is a workflow definition as its event (30460) carries it
// (spec/workflows.md).
type Workflow struct {
	Name        string `json:"name"`
	Channel     string `json:"channel"`      // the channel's id
	ChannelName string `json:"channel_name"` // its name
	Author      string `json:"author"`       // hex key of who applied it
	Runner      string `json:"runner"`       // hex key of the runner bound to it
	Event       string `json:"event"`        // the definition event's id: its version
	CreatedAt   int64  `json:"created_at"`
	Enabled     bool   `json:"enabled"` // false after hive workflow disable
	// Paused is the runner's reason when it paused this version (its run
	// budget), "" otherwise.
	Paused string `json:"paused,omitempty"`
	Source string `json:"-"` // the YAML
}

// WorkflowEvent is the unsigned definition event of a workflow named name
// in channel, bound to runner (hex), whose content is the YAML source.
func WorkflowEvent(channel, name, runner, source string) nostr.Event {
	return nostr.Event{Kind: kinds.WorkflowDef, Content: source, CreatedAt: nostr.Now(),
		Tags: nostr.Tags{{"d", name}, {"h", channel}, {"p", runner}}}
}

// Workflows are the workflow definitions of the channels the member is in
// (or of the one channel given), the newest per author and name, sorted by
// channel name and workflow name.
func (c *Client) Workflows(ctx context.Context, channel string) ([]Workflow, error) {
	chans, err := c.Channels(ctx)
	if err != nil {
		return nil, err
	}
	in := map[string]Channel{}
	for _, ch := range chans {
		if ch.Role != "" && (channel == "" || ch.ID == channel) {
			in[ch.ID] = ch
		}
	}
	f := nostr.Filter{Kinds: []int{kinds.WorkflowDef}, Limit: 5000}
	if channel != "" {
		f.Tags = nostr.TagMap{"h": {channel}}
	}
	evs, err := c.Query(ctx, f)
	if err != nil {
		return nil, err
	}
	newest := map[string]Workflow{}
	for _, ev := range evs {
		ch, ok := in[tagOf(ev, "h")]
		if !ok {
			continue
		}
		w := Workflow{Name: tagOf(ev, "d"), Channel: ch.ID, ChannelName: ch.Name, Author: ev.PubKey, Runner: tagOf(ev, "p"),
			Event: ev.ID, CreatedAt: int64(ev.CreatedAt), Enabled: Enabled(ev), Source: ev.Content}
		key := w.Channel + "\x00" + w.Author + "\x00" + w.Name
		if old, dup := newest[key]; !dup || old.CreatedAt < w.CreatedAt {
			newest[key] = w
		}
	}
	out := make([]Workflow, 0, len(newest))
	for _, w := range newest {
		out = append(out, w)
	}
	if err := c.pausedOnes(ctx, out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ChannelName != b.ChannelName {
			return a.ChannelName < b.ChannelName
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Author < b.Author
	})
	return out, nil
}

func tagOf(ev nostr.Event, name string) string {
	if t := ev.Tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}

// ResolveWorkflow picks the workflow named name from list: none is not
// found; several (two channels, or two authors in one) is a conflict that
// lists them.
func ResolveWorkflow(list []Workflow, name string) (Workflow, error) {
	var found []Workflow
	for _, w := range list {
		if w.Name == name {
			found = append(found, w)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Workflow{}, wrap(ErrNotFound, fmt.Errorf("no workflow %q in the channels you are in (see `hive workflow list`)", name))
	}
	var where []string
	chans := map[string]bool{}
	for _, w := range found {
		where = append(where, fmt.Sprintf("#%s by %s", w.ChannelName, w.Author[:8]))
		chans[w.Channel] = true
	}
	fix := "give --channel"
	if len(chans) == 1 {
		fix = "two authors applied one name in one channel: an owner or admin deletes one (kind 5, or 9005 for another's)"
	}
	return Workflow{}, wrap(ErrDuplicate, fmt.Errorf("%d workflows are named %q (%s): %s", len(found), name, strings.Join(where, ", "), fix))
}

// pausedOnes fills Paused from the runners' statuses (kind 30463): a
// runner's pause holds for the definition version it names.
func (c *Client) pausedOnes(ctx context.Context, list []Workflow) error {
	if len(list) == 0 {
		return nil
	}
	var runners, addrs []string
	for _, w := range list {
		runners, addrs = append(runners, w.Runner), append(addrs, w.Address())
	}
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.WorkflowStatus}, Authors: runners, Tags: nostr.TagMap{"d": addrs}, Limit: 5000})
	if err != nil {
		return err
	}
	for i := range list {
		for _, ev := range evs {
			var st struct{ Status, Reason, Version string }
			if ev.PubKey != list[i].Runner || tagOf(ev, "d") != list[i].Address() || json.Unmarshal([]byte(ev.Content), &st) != nil {
				continue
			}
			if st.Status == "paused" && st.Version == list[i].Event {
				list[i].Paused = st.Reason
			}
		}
	}
	return nil
}
