package agentbridge

import (
	"fmt"
	"slices"
	"time"
)

// MaxBatch is the most mentions one prompt carries.
const MaxBatch = 50

// Queue limits: mentions waiting (not in flight) per channel, and per author
// across the agent's channels. A mention over either is not queued: it gets
// a failure reply naming the limit (one per author and channel until one of
// that author's mentions there is queued again). A queued steer of the
// owner's is not counted.
const (
	MaxQueuedPerChannel = 100
	MaxQueuedPerAuthor  = 20
)

// Mention is one unit of work for a channel: a mention event, or an owner's
// steer text queued as the next prompt (ID empty).
type Mention struct {
	ID       string // event id ("" for a queued steer)
	Channel  string
	Author   string
	Content  string
	At       time.Time // the event's created_at
	Root     string    // the thread root the reply goes under
	Hops     int       // agent-to-agent hop count of the mention
	Received time.Time // when the bridge got it: the order of its channel's batch, and fairness
	Attempts int       // failed attempts so far
}

// Queue is the per-channel FIFO: at most one turn in flight per channel,
// mentions that arrive during a turn wait for the next prompt, and the channel
// whose head waited longest goes first. It is not safe for concurrent use.
type Queue struct {
	pending  map[string][]Mention
	inFlight map[string]bool
	known    map[string]bool // ids queued or in flight
	byAuthor map[string]int  // queued mentions (not steers, not in flight) per author
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	return &Queue{pending: map[string][]Mention{}, inFlight: map[string]bool{}, known: map[string]bool{}, byAuthor: map[string]int{}}
}

// Full says why m may not be queued now (a queue limit, named), or "".
// Steers are never refused.
func (q *Queue) Full(m Mention) string {
	if m.ID == "" {
		return ""
	}
	if n := len(q.pending[m.Channel]); n >= MaxQueuedPerChannel {
		return fmt.Sprintf("%d mentions already wait in this channel (at most %d per channel, %d per author)", n, MaxQueuedPerChannel, MaxQueuedPerAuthor)
	}
	if n := q.byAuthor[m.Author]; n >= MaxQueuedPerAuthor {
		return fmt.Sprintf("%d of your mentions already wait (at most %d per author, %d per channel)", n, MaxQueuedPerAuthor, MaxQueuedPerChannel)
	}
	return ""
}

// Push queues m in its channel in the order of Received (after every
// mention received at the same time or before); a mention already queued
// or in flight is ignored (false). Push does not check the limits: see
// Full.
func (q *Queue) Push(m Mention) bool {
	if m.ID != "" {
		if q.known[m.ID] {
			return false
		}
		q.known[m.ID] = true
	}
	ms := q.pending[m.Channel]
	i := len(ms)
	for i > 0 && m.Received.Before(ms[i-1].Received) {
		i--
	}
	q.pending[m.Channel] = slices.Insert(ms, i, m)
	q.count(m, 1)
	return true
}

// count adds d to m's author's queued mentions.
func (q *Queue) count(m Mention, d int) {
	if m.ID == "" {
		return
	}
	if q.byAuthor[m.Author] += d; q.byAuthor[m.Author] <= 0 {
		delete(q.byAuthor, m.Author)
	}
}

// Next takes the batch of the channel whose head is oldest among channels
// with no turn in flight for which ready says a process is free. The channel
// is then in flight until Done or Requeue.
func (q *Queue) Next(ready func(channel string) bool) (string, []Mention) {
	best := ""
	var bestAt time.Time
	for ch, ms := range q.pending {
		if len(ms) == 0 || q.inFlight[ch] || !ready(ch) {
			continue
		}
		if best == "" || ms[0].Received.Before(bestAt) || (ms[0].Received.Equal(bestAt) && ch < best) {
			best, bestAt = ch, ms[0].Received
		}
	}
	if best == "" {
		return "", nil
	}
	ms := q.pending[best]
	n := min(len(ms), MaxBatch)
	batch := append([]Mention(nil), ms[:n]...)
	if n == len(ms) {
		delete(q.pending, best)
	} else {
		q.pending[best] = ms[n:]
	}
	q.inFlight[best] = true
	for _, m := range batch {
		q.count(m, -1)
	}
	return best, batch
}

// Done ends the channel's turn; the batch's mentions are forgotten.
func (q *Queue) Done(channel string, batch []Mention) {
	delete(q.inFlight, channel)
	for _, m := range batch {
		delete(q.known, m.ID)
	}
}

// Requeue ends the channel's turn and puts the batch back at the front, with
// its original times so the channel keeps its place.
func (q *Queue) Requeue(channel string, batch []Mention) {
	delete(q.inFlight, channel)
	q.pending[channel] = append(append([]Mention(nil), batch...), q.pending[channel]...)
	for _, m := range batch {
		q.count(m, 1)
	}
}

// Busy reports whether channel has a turn in flight.
func (q *Queue) Busy(channel string) bool { return q.inFlight[channel] }

// Len is the number of queued mentions (not counting those in flight).
func (q *Queue) Len() int {
	n := 0
	for _, ms := range q.pending {
		n += len(ms)
	}
	return n
}

// Oldest is the earliest created_at among queued mentions, for the cursor.
func (q *Queue) Oldest() (time.Time, bool) {
	var t time.Time
	ok := false
	for _, ms := range q.pending {
		for _, m := range ms {
			if m.ID != "" && (!ok || m.At.Before(t)) {
				t, ok = m.At, true
			}
		}
	}
	return t, ok
}
