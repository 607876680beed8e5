package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

// printRow prints one timeline row: an NDJSON object, or a line of text.
func printRow(cmd *cobra.Command, r client.Row) error {
	return output(cmd, r, func(w io.Writer) error {
		var extra []string
		if r.Edited {
			extra = append(extra, "edited")
		}
		keys := make([]string, 0, len(r.Reactions))
		for k := range r.Reactions {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			extra = append(extra, fmt.Sprintf("%s %d", k, r.Reactions[k]))
		}
		suffix := ""
		if len(extra) > 0 {
			suffix = " (" + strings.Join(extra, ", ") + ")"
		}
		reply := ""
		if r.ReplyTo != "" {
			reply = " ↳" + r.ReplyTo[:8]
		}
		_, err := fmt.Fprintf(w, "%s %s %s%s: %s%s\n", time.Unix(int64(r.CreatedAt), 0).Format("2006-01-02 15:04:05"), r.ID[:8], short(npub(r.Author)), reply, r.Text, suffix)
		return err
	})
}

// readAround prints the rows around a message (a search hit, say).
func readAround(cmd *cobra.Command, id string, n int) error {
	return withSession(cmd, func(ctx context.Context, s *session) error {
		rows, err := s.Around(ctx, id, n)
		if err != nil {
			return withHint(err, "the id given to --around must be a message you can read (hive search prints ids)")
		}
		for _, r := range rows {
			if err := printRow(cmd, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func short(npub string) string {
	if len(npub) < 20 {
		return npub
	}
	return npub[:12] + "…" + npub[len(npub)-4:]
}

func newReadCmd() *cobra.Command {
	var limit int
	var before, around string
	var noMark bool
	cmd := &cobra.Command{
		Use:   "read CHANNEL [--limit N] [--before ID] | read --around ID [--limit N]",
		Short: "Print a channel's history (edits shown, deletes hidden, reactions counted), then mark it read",
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
			return withSession(cmd, func(ctx context.Context, s *session) error {
				ch, err := s.ResolveChannel(ctx, args[0])
				if err != nil {
					return err
				}
				rows, newest, err := s.History(ctx, ch.ID, limit, before)
				if err != nil {
					return err
				}
				for _, r := range rows {
					if err := printRow(cmd, r); err != nil {
						return err
					}
				}
				if noMark || before != "" || newest == 0 {
					return nil
				}
				return s.MarkRead(ctx, ch.ID, newest)
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "number of rows")
	cmd.Flags().StringVar(&before, "before", "", "only rows older than this message id (paging; does not mark read)")
	cmd.Flags().BoolVar(&noMark, "no-mark", false, "do not mark the channel read")
	cmd.Flags().StringVar(&around, "around", "", "the rows around this message id in its channel, --limit before and after it (does not mark read)")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

func newTailCmd() *cobra.Command {
	var limit int
	var follow bool
	cmd := &cobra.Command{
		Use:   "tail CHANNEL [--follow] [--limit N]",
		Short: "Print a channel's last messages; with --follow keep printing new ones as they arrive (reconnecting by itself)",
		Args:  exactArgs(1, "CHANNEL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 || limit > 1000 {
				return usageErrorf("--limit %d: give 0 to 1000", limit)
			}
			if !follow {
				return withSession(cmd, func(ctx context.Context, s *session) error {
					ch, err := s.ResolveChannel(ctx, args[0])
					if err != nil {
						return err
					}
					rows, _, err := s.History(ctx, ch.ID, max(limit, 1), "")
					if err != nil {
						return err
					}
					for _, r := range rows {
						if err := printRow(cmd, r); err != nil {
							return err
						}
					}
					return nil
				})
			}
			return followChannel(cmd, args[0], limit)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "number of past messages to print first")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep following until interrupted")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// followChannel prints the last limit rows, then every new content row once, in
// order, until interrupted. The connection is only bounded by --timeout
// while it is first made.
func followChannel(cmd *cobra.Command, channel string, limit int) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dctx, cancel := context.WithTimeout(ctx, timeoutOf(cmd))
	s, err := dial(dctx, cmd)
	if err != nil {
		cancel()
		return err
	}
	defer s.Close()
	ch, err := s.ResolveChannel(dctx, channel)
	cancel()
	if err != nil {
		return err
	}
	f := nostr.Filter{Kinds: client.ContentKinds(), Tags: nostr.TagMap{"h": {ch.ID}}, Limit: limit}
	if limit == 0 {
		now := nostr.Now()
		f.Since, f.Limit = &now, 0
	}
	sub, err := s.Subscribe(ctx, f)
	if err != nil {
		return err
	}
	defer sub.Close()
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return sub.Err()
			}
			if err := printRow(cmd, client.RowOf(ev)); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		case <-s.Done():
			return s.Err()
		}
	}
}
