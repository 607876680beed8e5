package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/spf13/cobra"
)

const searchHelp = `Search the messages you can read, best match first.

TEXT is a NIP-50 query: words (all must match), "a quoted phrase", word*
(prefix), -word (leave out), from:NAME and in:CHANNEL. Each result shows its
time, its id, channel, author and an excerpt with the matches in
[brackets]: read it in context with hive read --around ID.`

func newSearchCmd() *cobra.Command {
	var channel, from string
	var limit int
	cmd := &cobra.Command{
		Use:   "search TEXT [--channel CH] [--from NAME] [--limit N]",
		Short: "Search messages (NIP-50: words, \"phrases\", prefix*, -word), best match first",
		Long:  searchHelp,
		Args:  exactArgs(1, "TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 || limit > 500 {
				return usageErrorf("--limit %d: give 1 to 500", limit)
			}
			query := args[0]
			if strings.TrimSpace(query) == "" {
				return usageErrorf("empty search: give the words to look for")
			}
			if from != "" {
				query += " from:" + strings.ReplaceAll(from, " ", "")
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				var o client.SearchOptions
				o.Limit = limit
				if channel != "" {
					ch, err := s.ResolveChannel(ctx, channel)
					if err != nil {
						return err
					}
					o.Channel = ch.ID
				}
				hits, err := s.Search(ctx, query, o)
				var refused *client.RefusedError
				if errors.As(err, &refused) && strings.HasPrefix(refused.Reason, "invalid: search:") {
					return withHint(exitWith(exitUsage, err), "see `hive search --help` for the query syntax")
				}
				if err != nil {
					return err
				}
				if len(hits) == 0 && !jsonOutput(cmd) {
					fmt.Fprintln(cmd.ErrOrStderr(), "no messages match")
				}
				for _, h := range hits {
					if err := printHit(cmd, h); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "only this channel (id or name)")
	cmd.Flags().StringVar(&from, "from", "", "only messages by this author (profile name, npub or hex)")
	cmd.Flags().IntVar(&limit, "limit", 20, "number of results")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// printHit prints one result: an NDJSON object, or a line of text.
func printHit(cmd *cobra.Command, h client.SearchHit) error {
	return output(cmd, h, func(w io.Writer) error {
		ch := h.ChannelName
		if ch == "" {
			ch = h.Channel
		}
		edited := ""
		if h.Edited {
			edited = " (edited)"
		}
		_, err := fmt.Fprintf(w, "%s %s #%s %s: %s%s\n", time.Unix(int64(h.CreatedAt), 0).Format("2006-01-02 15:04"), shortID(h.ID), line(ch), line(h.Label), line(h.Excerpt), edited)
		return err
	})
}
