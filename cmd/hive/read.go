package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newReadCmd() *cobra.Command {
	var limit int
	var before, around string
	var noMark, follow bool
	cmd := &cobra.Command{
		Use:   "read CHANNEL [--limit N] [--before ID] [--follow] | read --around ID [--limit N]",
		Short: "Print a channel's history (names, edits shown, deletes hidden, reactions counted, replies after what they answer), then mark it read",
		Args: func(cmd *cobra.Command, args []string) error {
			if around != "" {
				return exactArgs(0, "--around ID (no CHANNEL: the message's own)")(cmd, args)
			}
			return exactArgs(1, "CHANNEL")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > 1000 {
				return usageErrorf("--limit %d: give 1 to 1000", limit)
			}
			if around != "" {
				return readAround(cmd, around, limit)
			}
			if follow && before != "" {
				return usageErrorf("--follow prints new rows after the newest: leave out --before")
			}
			return withFollow(cmd, follow, func(ctx context.Context, s *hubConn) (*chat.Model, []string, error) {
				ch, err := s.ResolveChannel(ctx, args[0])
				if err != nil {
					return nil, nil, err
				}
				if before != "" {
					if before, err = s.ResolveID(ctx, before); err != nil {
						return nil, nil, err
					}
				}
				page, err := s.History(ctx, ch.ID, limit, before)
				if err != nil {
					return nil, nil, err
				}
				p := printer{cmd: cmd, m: page.Model}
				for _, r := range page.Rows {
					if err := p.row(chat.Added, r); err != nil {
						return nil, nil, err
					}
				}
				if !noMark && before == "" && page.Seen.At != 0 {
					if err := s.MarkRead(ctx, ch.ID, page.Seen); err != nil {
						return nil, nil, err
					}
				}
				return page.Model, []string{ch.ID}, nil
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "number of rows")
	cmd.Flags().StringVar(&before, "before", "", "only rows older than this message id (paging; does not mark read)")
	cmd.Flags().BoolVar(&noMark, "no-mark", false, "do not mark the channel read")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "then keep printing new rows, edits, deletes and reactions until interrupted")
	cmd.Flags().StringVar(&around, "around", "", "the rows around this message id in its channel, --limit before and after it (does not mark read)")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// readAround prints the rows around a message (a search hit, say).
func readAround(cmd *cobra.Command, id string, n int) error {
	return withHub(cmd, func(ctx context.Context, s *hubConn) error {
		id, err := s.ResolveID(ctx, id)
		if err != nil {
			return err
		}
		page, err := s.Around(ctx, id, n)
		if err != nil {
			return withHint(err, "the id given to --around must be a message you can read (hive search prints ids)")
		}
		p := printer{cmd: cmd, m: page.Model}
		for _, r := range page.Rows {
			if err := p.row(chat.Added, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func newTailCmd() *cobra.Command {
	var limit int
	var follow, all bool
	cmd := &cobra.Command{
		Use:   "tail [CHANNEL...] [--all] [--follow] [--limit N]",
		Short: "Print channels' last messages; with --follow keep printing new ones, edits, deletes and reactions as they arrive (reconnecting by itself)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 || limit > 1000 {
				return usageErrorf("--limit %d: give 0 to 1000", limit)
			}
			if (len(args) == 0) == !all {
				return usageErrorf("give one or more channels, or --all (every channel you are a member of)")
			}
			return withFollow(cmd, follow, func(ctx context.Context, s *hubConn) (*chat.Model, []string, error) {
				ids, err := s.tailChannels(ctx, args, all)
				if err != nil {
					return nil, nil, err
				}
				m := s.NewModel()
				p := printer{cmd: cmd, m: m, several: len(ids) > 1}
				for _, id := range ids {
					if limit == 0 {
						continue
					}
					if _, err := s.LoadPage(ctx, m, id, limit, nil); err != nil {
						return nil, nil, err
					}
					rows := m.Timeline(id)
					for _, r := range rows[max(0, len(rows)-limit):] {
						if err := p.row(chat.Added, r); err != nil {
							return nil, nil, err
						}
					}
				}
				return m, ids, nil
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "number of past messages to print first (per channel)")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep following until interrupted")
	cmd.Flags().BoolVar(&all, "all", false, "every channel you are a member of")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// tailChannels resolves the channels to tail: those named, or all the
// member's.
func (s *hubConn) tailChannels(ctx context.Context, args []string, all bool) ([]string, error) {
	if !all {
		var ids []string
		for _, a := range args {
			ch, err := s.ResolveChannel(ctx, a)
			if err != nil {
				return nil, err
			}
			ids = append(ids, ch.ID)
		}
		return ids, nil
	}
	chans, err := s.myChannels(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, ch := range chans {
		ids = append(ids, ch.ID)
	}
	return ids, nil
}

// myChannels are the channels the member is in (at least one).
func (s *hubConn) myChannels(ctx context.Context) ([]client.Channel, error) {
	mine, err := s.memberChannels(ctx)
	if err != nil {
		return nil, err
	}
	if len(mine) == 0 {
		return nil, exitWith(exitNotFound, errors.New("you are a member of no channel (see `hive channel list`)"))
	}
	return mine, nil
}

// memberChannels are the channels the member is in, maybe none.
func (s *hubConn) memberChannels(ctx context.Context) ([]client.Channel, error) {
	chans, err := s.Channels(ctx)
	if err != nil {
		return nil, err
	}
	var mine []client.Channel
	for _, ch := range chans {
		if ch.Members[s.Member()] != "" || ch.Role != "" {
			mine = append(mine, ch)
		}
	}
	return mine, nil
}

// withFollow runs first (bounded by --timeout) and, with follow, then
// prints every change to the channels it returns until interrupted; the
// connection is bounded by --timeout only while first runs.
func withFollow(cmd *cobra.Command, follow bool, first func(ctx context.Context, s *hubConn) (*chat.Model, []string, error)) error {
	if !follow {
		return withHub(cmd, func(ctx context.Context, s *hubConn) error {
			_, _, err := first(ctx, s)
			return err
		})
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dctx, cancel := context.WithTimeout(ctx, timeoutOf(cmd))
	s, err := dial(dctx, cmd)
	if err != nil {
		cancel()
		return err
	}
	defer s.Close()
	since := nostr.Now()
	m, ids, err := first(dctx, s)
	cancel()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if m.Len(id) > 0 {
			since -= 2 // what arrived while the history loaded comes again, merged once
			break
		}
	}
	err = followChannels(ctx, s, printer{cmd: cmd, m: m, several: len(ids) > 1}, ids, since)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // interrupted: the normal end
	}
	return err
}

// followChannels applies every event of channels since to the printer's
// model and prints each row that changed.
func followChannels(ctx context.Context, s *hubConn, p printer, channels []string, since nostr.Timestamp) error {
	rowKinds := append(client.TimelineKinds(), kinds.Edit, kinds.DeleteInChannel, kinds.Reaction, kinds.Receipt)
	fs := []nostr.Filter{
		{Kinds: rowKinds, Tags: nostr.TagMap{"h": channels}, Since: &since},
		{Kinds: []int{kinds.Deletion, kinds.Reaction}, Since: &since}, // a kind 5 has no h; a reaction may lack one
		{Kinds: []int{kinds.Profile}, Since: &since},                  // names refresh live
	}
	return s.Follow(ctx, func(ev nostr.Event) (bool, error) {
		for _, c := range slices.Clone(p.m.Apply(&ev)) { // LoadNames applies more below
			if !slices.Contains(channels, c.Channel) || !c.Loaded {
				continue
			}
			if c.Op == chat.Added {
				quoted, _ := s.LoadQuoted(ctx, p.m, []nostr.Event{ev})                           // a quote not found shows no text
				s.LoadNames(ctx, p.m, client.KeysShown(append([]nostr.Event{ev}, quoted...))...) // a name not found shows as an npub
			}
			r, _ := p.m.Row(c.ID)
			switch c.Op {
			case chat.Added, chat.Edited, chat.Deleted, chat.Reacted, chat.Receipted:
				if err := p.row(c.Op, r); err != nil {
					return true, err
				}
			}
		}
		return false, nil
	}, fs...)
}
