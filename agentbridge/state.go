package agentbridge

import (
	"encoding/json"
	"fmt"
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
	f      stateFile
	fresh  bool   // no state existed: this is the first start
	ver    uint64 // changes made
	saved  uint64 // changes on disk (or whose write failed: err)
	saving bool   // the writer goroutine is running
	err    error  // the last write's error
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
		s.f.Cursor = time.Now().Unix()
	case err != nil:
		return nil, fmt.Errorf("state_dir: %w", err)
	default:
		if err := json.Unmarshal(b, &s.f); err != nil {
			return nil, fmt.Errorf("state file %s is corrupt (%v): move it away to start fresh", s.path, err)
		}
	}
	if s.f.Sessions == nil {
		s.f.Sessions = map[string]SessionRef{}
	}
	if s.f.Answered == nil {
		s.f.Answered = map[string]int64{}
	}
	if s.f.Seen == nil {
		s.f.Seen = map[string]SeenMark{}
	}
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
	return s.f.Cursor
}

// Answered reports whether a mention was already answered.
func (s *State) Answered(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.f.Answered[id]
	return ok
}

// MarkAnswered records answered mentions and moves the cursor to floor (the
// oldest mention still waiting, or now when none is).
func (s *State) MarkAnswered(ms []Mention, floor int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range ms {
		if m.ID != "" {
			s.f.Answered[m.ID] = m.At.Unix()
		}
	}
	if floor > s.f.Cursor {
		s.f.Cursor = floor
	}
	keep := s.f.Cursor - int64(answeredKeep/time.Second)
	for id, at := range s.f.Answered {
		if at < keep {
			delete(s.f.Answered, id)
		}
	}
	s.changedLocked()
}

// Session returns the persisted session of a channel.
func (s *State) Session(channel string) (SessionRef, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.f.Sessions[channel]
	return r, ok
}

// SetSession records a channel's session.
func (s *State) SetSession(channel string, r SessionRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.f.Sessions[channel] = r
	s.changedLocked()
}

// Seen is how far the prompts of session have covered context (a channel
// id, or "thread:" and a root id); zero if never.
func (s *State) Seen(session, context string) SeenMark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Seen[session+" "+context]
}

// SetSeen moves a seen mark forward (never back), dropping the oldest
// marks beyond maxSeen.
func (s *State) SetSeen(session, context string, mark SeenMark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := session + " " + context
	if mark.At < s.f.Seen[k].At || mark == s.f.Seen[k] {
		return
	}
	s.f.Seen[k] = mark
	for len(s.f.Seen) > maxSeen {
		oldest, min := "", int64(0)
		for key, v := range s.f.Seen {
			if oldest == "" || v.At < min {
				oldest, min = key, v.At
			}
		}
		delete(s.f.Seen, oldest)
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
	return json.MarshalIndent(&s.f, "", " ")
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

// ChannelOf is the channel whose persisted session is session ("" if none).
func (s *State) ChannelOf(session string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch, r := range s.f.Sessions {
		if r.Session == session {
			return ch
		}
	}
	return ""
}
