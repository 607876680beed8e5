package chatui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow/manual"
	tea "github.com/charmbracelet/bubbletea"
)

// cmdRun starts a manual run of a workflow (hive workflow run): "/run NAME
// k=v ...". The workflow is looked for in the open channel first, then in
// every channel the member is in; the inputs are checked against its
// definition before anything is published, by the rule hive workflow run
// follows (workflow/manual). The run's card then shows in its channel,
// with its badge.
func (m *Model) cmdRun(arg string) tea.Cmd {
	fields := strings.Fields(arg)
	name, args := fields[0], fields[1:]
	open := m.s.Current()
	return m.call(func(ctx context.Context, c *client.Client) doneMsg {
		w, d, err := manual.Find(ctx, c, name, open)
		if open != "" && errors.Is(err, client.ErrNotFound) {
			w, d, err = manual.Find(ctx, c, name, "")
		}
		if err != nil {
			return doneMsg{err: fmt.Errorf("/run %s: %s", name, manual.Message(err))}
		}
		r, err := manual.Check(w, d, args)
		if err != nil {
			return doneMsg{err: fmt.Errorf("/run %s: %s (nothing was sent)", name, manual.Message(err))}
		}
		id, _, err := r.Start(ctx, c)
		if err != nil {
			return doneMsg{err: fmt.Errorf("/run %s: %w", name, err)}
		}
		return doneMsg{notice: fmt.Sprintf("▶ run %s of %s requested in #%s: its card shows there", id[:8], w.Name, w.ChannelName)}
	})
}
