package agentbridge

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// answeredKeep is how long answered mention ids are remembered behind the
// cursor (the catch-up query starts this far behind it, for clock skew).
const answeredKeep = 10 * time.Minute

// SessionRef is a persisted ACP session of one (agent, channel).
type SessionRef struct {
	Session string `json:"session"`
	Cwd     string `json:"cwd"`
}

// stateFile is the JSON kept in STATE_DIR/<agent>/state.json.
type stateFile struct {
	Cursor   int64                 `json:"cursor"`   // unix seconds: mentions before it were all answered
	Sessions map[string]SessionRef `json:"sessions"` // channel -> session
	Answered map[string]int64      `json:"answered"` // mention id -> created_at, near the cursor
	Seen     map[string]SeenMark   `json:"seen"`     // session + " " + context -> how far its prompts have covered it
	// Turns are the turns in flight, until their final receipts are out:
	// what a run that stops mid-turn leaves to the next (TurnRecord).
	Turns map[string]TurnRecord `json:"turns,omitempty"`
}

// TurnRecord is a turn in flight, as the state keeps it: its channel, its
// mentions (id and author, for their receipts) and when it began (unix
// ns, which tells a turn retried under the same id from the one before).
type TurnRecord struct {
	Channel  string       `json:"channel"`
	Mentions []MentionRef `json:"mentions,omitempty"`
	Began    int64        `json:"began"`
}

// MentionRef names a mention of a turn.
type MentionRef struct {
	ID     string `json:"id"`
	Author string `json:"author"`
}

// SeenMark is the newest row of a context (a channel or a thread) that a
// session's prompts have covered: its id and its time in ms.
type SeenMark struct {
	ID string `json:"id"`
	At int64  `json:"at"`
}

// maxSeen bounds the seen marks kept; the oldest go first.
const maxSeen = 2000

// State is an agent's durable bridge state. A change is visible at once and
// written to disk (atomically, with fsync) in the background, so nothing on
// the way from a mention to its prompt waits for the disk; Flush waits for
// the writes. Changes made while a write is under way go out together in the
// next one.
type State struct {
	mu     sync.Mutex
	path   string
	data   stateFile             // what the file holds
	fresh  bool                  // no state existed: this is the first start
	last   map[string]TurnRecord // the turns the previous run left in flight
	ver    uint64                // changes made
	saved  uint64                // changes on disk (or whose write failed: err)
	saving bool                  // the writer goroutine is running
	err    error                 // the last write's error
	onErr  func(error)
	done   *sync.Cond // broadcast after each write
}

// OpenState loads or creates the state of one agent under dir. onErr (if
// not nil) hears of background writes that fail.
func OpenState(dir, agent string, onErr func(error)) (*State, error) {
	d := filepath.Join(dir, agent)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, fmt.Errorf("state_dir: %w", err)
	}
	s := &State{path: filepath.Join(d, "state.json"), onErr: onErr}
	s.done = sync.NewCond(&s.mu)
	b, err := os.ReadFile(s.path)
	switch {
	case os.IsNotExist(err):
		s.fresh = true
		s.data.Cursor = time.Now().Unix()
	case err != nil:
		return nil, fmt.Errorf("state_dir: %w", err)
	default:
		if err := json.Unmarshal(b, &s.data); err != nil {
			return nil, fmt.Errorf("state file %s is corrupt (%v): move it away to start fresh", s.path, err)
		}
	}
	if s.data.Sessions == nil {
		s.data.Sessions = map[string]SessionRef{}
	}
	if s.data.Answered == nil {
		s.data.Answered = map[string]int64{}
	}
	if s.data.Seen == nil {
		s.data.Seen = map[string]SeenMark{}
	}
	if s.data.Turns == nil {
		s.data.Turns = map[string]TurnRecord{}
	}
	s.last = maps.Clone(s.data.Turns)
	if b, err = s.encodeLocked(); err == nil {
		err = s.write(b)
	}
	if err != nil {
		return nil, fmt.Errorf("state_dir: %w", err)
	}
	return s, nil
}

// Dir is the agent's state directory (mode 0700).
func (s *State) Dir() string { return filepath.Dir(s.path) }

// Fresh reports whether this agent had no state (first start).
func (s *State) Fresh() bool { return s.fresh }

// Cursor is the time catch-up starts from.
func (s *State) Cursor() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.Cursor
}

// Answered reports whether a mention was already answered.
func (s *State) Answered(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.data.Answered[id]
	return ok
}

// MarkAnswered records answered mentions and moves the cursor to floor (the
// oldest mention still waiting, or now when none is).
func (s *State) MarkAnswered(ms []Mention, floor int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if m.ID != "" {
			s.data.Answered[m.ID] = m.At.Unix()
		}
	}
	if floor > s.data.Cursor {
		s.data.Cursor = floor
	}
	keep := s.data.Cursor - int64(answeredKeep/time.Second)
	for id, at := range s.data.Answered {
		if at < keep {
			delete(s.data.Answered, id)
		}
	}
	s.changedLocked()
}

// Session returns the persisted session of a channel.
func (s *State) Session(channel string) (SessionRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.data.Sessions[channel]
	return r, ok
}

// SetSession records a channel's session.
func (s *State) SetSession(channel string, r SessionRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Sessions[channel] = r
	s.changedLocked()
}

// Seen is how far the prompts of session have covered context (a channel
// id, or "thread:" and a root id); zero if never.
func (s *State) Seen(session, context string) SeenMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.Seen[session+" "+context]
}

// SetSeen moves a seen mark forward (never back), dropping the oldest
// marks beyond maxSeen.
func (s *State) SetSeen(session, context string, mark SeenMark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := session + " " + context
	if mark.At < s.data.Seen[k].At || mark == s.data.Seen[k] {
		return
	}
	s.data.Seen[k] = mark
	for len(s.data.Seen) > maxSeen {
		oldest, min := "", int64(0)
		for key, v := range s.data.Seen {
			if oldest == "" || v.At < min {
				oldest, min = key, v.At
			}
		}
		delete(s.data.Seen, oldest)
	}
	s.changedLocked()
}

// changedLocked counts a change and starts the writer if it is not running.
func (s *State) changedLocked() {
	s.ver++
	if !s.saving {
		s.saving = true
		go s.writer()
	}
}

// writer writes the state until the file holds every change, then ends.
func (s *State) writer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.saved < s.ver {
		v := s.ver
		b, err := s.encodeLocked()
		if err == nil {
			s.mu.Unlock()
			err = s.write(b)
			s.mu.Lock()
		}
		s.saved, s.err = v, err
		s.done.Broadcast()
		if err != nil && s.onErr != nil {
			s.mu.Unlock()
			s.onErr(err)
			s.mu.Lock()
		}
	}
	s.saving = false
}

// Flush waits until every change made so far is on disk; it returns the
// error of the last write.
func (s *State) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for v := s.ver; s.saved < v; {
		s.done.Wait()
	}
	return s.err
}

func (s *State) encodeLocked() ([]byte, error) {
	return json.MarshalIndent(&s.data, "", " ")
}

// write replaces the state file with b: a temporary file, fsync, rename.
func (s *State) write(b []byte) error {
	tmp := s.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, s.path)
}

// BeginTurn records turn id in flight (replacing a record of the same id).
func (s *State) BeginTurn(id string, rec TurnRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data.Turns[id] = rec
	s.changedLocked()
}

// EndTurn forgets turn id, if the record is still the one that began at
// began (not a retry's that began since).
func (s *State) EndTurn(id string, began int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.data.Turns[id]; ok && rec.Began == began {
		delete(s.data.Turns, id)
		s.changedLocked()
	}
}

// LastRunTurns are the turns the previous run left in flight, as the state
// was opened (EndTurn forgets each once it is settled).
func (s *State) LastRunTurns() map[string]TurnRecord { return s.last }

// ChannelOf is the channel whose persisted session is session ("" if none).
func (s *State) ChannelOf(session string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch, r := range s.data.Sessions {
		if r.Session == session {
			return ch
		}
	}
	return ""
}
