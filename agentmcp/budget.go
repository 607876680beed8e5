package agentmcp

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// A turn's post budget is shared by every `hive mcp` of the turn's
// session: a server started again on the same turn (the agent restarted its
// MCP servers) must not start again at 0. With a turn file the budget is
// kept beside it, in PostsDir(turn file): one file per post, named by the
// turn and the post's number and created exclusively (O_EXCL), so two
// servers posting at once never both take the same post; the bridge empties
// the directory when it writes the next turn. Without a turn file it is
// this process's (Server.posts).

// PostsDir is where the posts of a turn file's turns are counted.
func PostsDir(turnFile string) string { return turnFile + ".posts" }

// spend takes one post from the turn's budget, or says why not.
func (s *Server) spend(t Turn) error {
	if s.cfg.TurnFile == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.posts[t.ID] >= MaxPostsPerTurn {
			return budgetSpent(s.posts[t.ID])
		}
		s.posts[t.ID]++
		return nil
	}
	dir := PostsDir(s.cfg.TurnFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("counting the turn's posts: %w", err)
	}
	for n := 1; n <= MaxPostsPerTurn; n++ {
		f, err := os.OpenFile(filepath.Join(dir, postName(t.ID, n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f.Close()
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("counting the turn's posts: %w", err)
		}
	}
	return budgetSpent(MaxPostsPerTurn)
}

// postName is the file of a turn's n-th post (the id hex-encoded: no
// turn file's content makes it a path elsewhere).
func postName(turn string, n int) string {
	return hex.EncodeToString([]byte(turn)) + "." + strconv.Itoa(n)
}

func budgetSpent(n int) error {
	return fmt.Errorf("at most %d posts in one turn: this turn has made %d; put the rest in your answer", MaxPostsPerTurn, n)
}

// mayWrite says why the write tools may not post in channel ch during
// turn t: only the turn's own channel, unless the agent's config lists
// ch (or "*") in hive_tools_write_channels.
func (s *Server) mayWrite(t Turn, ch string) error {
	if ch == t.Channel || slices.Contains(s.cfg.WriteChannels, ch) || slices.Contains(s.cfg.WriteChannels, "*") {
		return nil
	}
	return fmt.Errorf("channel %s is not this turn's channel (%s): the hive tools write only in the channel the agent was asked in, unless its bridge config lists the channel in hive_tools_write_channels", ch, t.Channel)
}
