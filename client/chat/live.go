package chat

import (
	"sort"
	"strings"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// How long liveness signals hold without being renewed.
const (
	// PresenceTTL: a presence (20001) older than this reads as offline.
	PresenceTTL = 10 * time.Minute
	// TypingTTL: a typing indicator (20002) older than this has stopped
	// (the bridge renews it every 3 s during a turn).
	TypingTTL = 8 * time.Second
)

// Presence statuses.
const (
	Online  = "online"
	Away    = "away"
	Offline = "offline"
)

// Live is presence, typing and the agents' turns in flight, each with the
// time it was last seen.
type Live struct {
	presence map[string]seen
	typing   map[string]map[string]*span // channel -> key -> span
	turns    map[string]map[string]*span // agent -> turn id -> span (channel in span)
}

type seen struct {
	status string
	at     time.Time
}

// span is a signal seen from first to last (in channel).
type span struct {
	channel     string
	first, last time.Time
}

// NewLive is an empty liveness state.
func NewLive() *Live {
	return &Live{presence: map[string]seen{}, typing: map[string]map[string]*span{}, turns: map[string]map[string]*span{}}
}

// comesOnline reports whether ev is a presence that brings its key online:
// "online" (or empty) from a key not online at now.
func (l *Live) comesOnline(ev *nostr.Event, now time.Time) bool {
	if ev.Kind != kinds.Presence {
		return false
	}
	if st := strings.TrimSpace(ev.Content); st != "" && st != Online {
		return false
	}
	return l.Presence(ev.PubKey, now) != Online
}

// Apply records a presence or typing event seen at now, and reports
// whether it was one.
func (l *Live) Apply(ev *nostr.Event, now time.Time) bool {
	switch ev.Kind {
	case kinds.Presence:
		st := strings.TrimSpace(ev.Content)
		if st == "" {
			st = Online
		}
		l.presence[ev.PubKey] = seen{st, now}
	case kinds.Typing:
		ch := channelOf(ev)
		if ch == "" {
			return false
		}
		if strings.TrimSpace(ev.Content) == "stop" {
			l.StopTyping(ch, ev.PubKey)
			return true
		}
		byKey := l.typing[ch]
		if byKey == nil {
			byKey = map[string]*span{}
			l.typing[ch] = byKey
		}
		if s := byKey[ev.PubKey]; s != nil && now.Sub(s.last) <= TypingTTL {
			s.last = now
		} else {
			byKey[ev.PubKey] = &span{channel: ch, first: now, last: now}
		}
	default:
		return false
	}
	l.expire(now)
	return true
}

// StopTyping ends pk's typing in channel (its message arrived).
func (l *Live) StopTyping(channel, pk string) {
	if byKey := l.typing[channel]; byKey != nil {
		delete(byKey, pk)
		if len(byKey) == 0 {
			delete(l.typing, channel)
		}
	}
}

// sent ends pk's typing in channel when its message sent at (to the
// second) is not older than the typing.
func (l *Live) sent(channel, pk string, at time.Time) {
	if s := l.typing[channel][pk]; s != nil && !at.Add(time.Second).Before(s.first) {
		l.StopTyping(channel, pk)
	}
}

// expire drops signals that can no longer hold.
func (l *Live) expire(now time.Time) {
	for ch, byKey := range l.typing {
		for pk, s := range byKey {
			if now.Sub(s.last) > TypingTTL {
				delete(byKey, pk)
			}
		}
		if len(byKey) == 0 {
			delete(l.typing, ch)
		}
	}
	for pk, s := range l.presence {
		if now.Sub(s.at) > PresenceTTL {
			delete(l.presence, pk)
		}
	}
}

// Presence is pk's status at now: online, away, offline (also when its
// last presence is older than PresenceTTL or none was seen).
func (l *Live) Presence(pk string, now time.Time) string {
	s, ok := l.presence[pk]
	if !ok || now.Sub(s.at) > PresenceTTL {
		return Offline
	}
	return s.status
}

// PresenceSeen is pk's status at now and whether one was seen at all
// within PresenceTTL.
func (l *Live) PresenceSeen(pk string, now time.Time) (string, bool) {
	s, ok := l.presence[pk]
	if !ok || now.Sub(s.at) > PresenceTTL {
		return Offline, false
	}
	return s.status, true
}

// Typing lists who is typing in channel at now, sorted.
func (l *Live) Typing(channel string, now time.Time) []string {
	var out []string
	for pk, s := range l.typing[channel] {
		if now.Sub(s.last) <= TypingTTL {
			out = append(out, pk)
		}
	}
	sort.Strings(out)
	return out
}

// TurnStarted records that agent's observer frames show turn in flight in
// channel since at (frames of a turn already known only keep it).
func (l *Live) TurnStarted(agent, channel, turn string, at time.Time) {
	byTurn := l.turns[agent]
	if byTurn == nil {
		byTurn = map[string]*span{}
		l.turns[agent] = byTurn
	}
	if s := byTurn[turn]; s != nil {
		s.last = at
		return
	}
	byTurn[turn] = &span{channel: channel, first: at, last: at}
}

// TurnEnded records that agent's turn is over.
func (l *Live) TurnEnded(agent, turn string) {
	if byTurn := l.turns[agent]; byTurn != nil {
		delete(byTurn, turn)
		if len(byTurn) == 0 {
			delete(l.turns, agent)
		}
	}
}

// Sources of the working signal.
const (
	FromObserver = "observer" // the agent's observer frames (its owner and their devices)
	FromTyping   = "typing"   // the agent's typing indicators (everyone in the channel)
)

// Working is whether an agent is working, as far as the reader can tell.
type Working struct {
	Working bool          `json:"working"`
	Source  string        `json:"source,omitempty"` // FromObserver or FromTyping
	Channel string        `json:"channel,omitempty"`
	Since   time.Time     `json:"since,omitempty"`
	Elapsed time.Duration `json:"elapsed,omitempty"`
}

// Working says whether agent is working in channel ("" for any channel) at
// now: a turn in flight in its observer frames first, else its typing.
func (l *Live) Working(agent, channel string, now time.Time) Working {
	pick := func(src string, s *span, w Working) Working {
		if channel != "" && s.channel != channel {
			return w
		}
		if !w.Working || s.first.Before(w.Since) {
			return Working{Working: true, Source: src, Channel: s.channel, Since: s.first, Elapsed: now.Sub(s.first)}
		}
		return w
	}
	var w Working
	for _, s := range l.turns[agent] {
		w = pick(FromObserver, s, w)
	}
	if w.Working {
		return w
	}
	for _, byKey := range l.typing {
		if s := byKey[agent]; s != nil && now.Sub(s.last) <= TypingTTL {
			w = pick(FromTyping, s, w)
		}
	}
	return w
}
