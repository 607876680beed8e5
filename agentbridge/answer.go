package agentbridge

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// MaxHops is the agent-to-agent hop limit: a bridge's reply carries
// ["hops", N+1] where N is the mention's hops (0 without the tag), and a
// mention with MaxHops or more is not answered.
const MaxHops = 3

// verdict is what the bridge does with one message of its channels.
type verdict int

const (
	ignore verdict = iota // not a question to the agent, or one decided before: nothing
	answer                // a mention to queue for a turn
	refuse                // a question the agent will not answer: a not-answered receipt saying why
	settle                // an earlier run answered it: record it as answered
)

// decision is decide's answer for one message.
type decision struct {
	verdict verdict
	m       Mention
	why     string       // refuse: the receipt's reason; ignore: why it is not a mention ("" when obvious)
	reply   *nostr.Event // settle: the earlier run's reply
}

// Reasons of decide that the bridge does not log.
const (
	notTagged = "does not mention the agent"
	ownEvent  = "the agent's own event"
)

// decide is the one answer to "does the agent answer this message?", asked
// once for each message of the agent's channels (onMessage acts on it):
//
//   - a message that is not one, the agent's own, outside its channels, or
//     neither tagging the agent (a DM always does) nor naming it: ignore;
//   - one decided before (answered, or refused: the state's answered ids,
//     asked once): ignore;
//   - past the hop limit: refuse ("agents answering agents stop here");
//   - from an author the answer gate does not admit: refuse (the gate's
//     reason, naming the config key);
//   - "@name" typed without the p tag: refuse (how to mention it);
//   - already answered on the hub by an earlier run that died before it
//     recorded it (priorReplies): settle;
//   - else: answer.
func (r *runner) decide(ctx context.Context, h HubConn, ev *nostr.Event, channels map[string]channelInfo) decision {
	agent, ch := r.keys.PublicHex, tagValue(ev.Tags, "h")
	info, member := channels[ch]
	tagged := info.typ == "dm" || ev.Tags.ContainsAny("p", []string{agent})
	why := ""
	switch {
	case ev.Kind != kinds.Message:
		why = "not a message"
	case ev.PubKey == agent:
		why = ownEvent
	case ch == "":
		why = "no channel"
	case !member:
		why = "the agent is not a member of channel " + ch
	case !tagged && !r.cfg.namedInText(ev.Content):
		why = notTagged
	}
	if why != "" {
		return decision{why: why}
	}
	m := asMention(ev)
	switch {
	case r.state.Answered(m.ID):
		return decision{}
	case tagged && m.Hops >= MaxHops:
		why = fmt.Sprintf("hop limit reached (%d): agents answering agents stop here", m.Hops)
	case !r.gate.mayAsk(ctx, h, m.Author):
		r.log.Info("not answering a mention: the answer gate does not admit its author", "event", m.ID, "author", m.Author)
		why = r.gate.reason()
	case !tagged:
		why = "your message names " + r.cfg.handle() + " in its text but does not tag the agent (no p tag), so it is not a mention: " +
			"mention it with completion (@ and Tab in hive chat, @" + r.cfg.Name + " in hive send), or reply in a DM with it"
	}
	if why != "" {
		return decision{verdict: refuse, m: m, why: why}
	}
	if reply := r.prior.reply(ctx, h, ev); reply != nil {
		return decision{verdict: settle, m: m, reply: reply}
	}
	m.Received = time.Now()
	if at, ok := r.asked[m.ID]; ok { // the last run asked it: before what it never took
		m.Received = at
	}
	return decision{verdict: answer, m: m}
}

// handle is how people type the agent's name: "@" and its display name.
func (a *AgentConfig) handle() string { return "@" + a.displayName() }

// namedInText reports whether text holds "@NAME" for the agent's display
// name or its config name (any case), not followed by a letter, digit, "_"
// or "-": how the bridge notices a mention typed without the p tag.
func (a *AgentConfig) namedInText(text string) bool {
	low := strings.ToLower(text)
	for _, name := range []string{a.displayName(), a.Name} {
		at := "@" + strings.ToLower(name)
		for i := strings.Index(low, at); i >= 0; {
			end := i + len(at)
			if next, _ := utf8.DecodeRuneInString(low[end:]); end == len(low) || !(unicode.IsLetter(next) || unicode.IsDigit(next) || next == '_' || next == '-') {
				return true
			}
			j := strings.Index(low[end:], at)
			if j < 0 {
				break
			}
			i = end + j
		}
	}
	return false
}
