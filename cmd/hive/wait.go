package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newWaitCmd() *cobra.Command {
	var replyTo, from string
	cmd := &cobra.Command{
		Use:   "wait --reply-to ID [--from KEY] [--timeout 5m]",
		Short: "Block until a reply to message ID arrives (from KEY if given: an npub, hex or a name; an agent's batch reply quoting ID counts) and print it; exit 6 on timeout",
		Example: `  id=$(hive send ops "@agent status?" --mention claude --json | jq -r .id)
  hive wait --reply-to "$id" --from claude --timeout 2m --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if replyTo == "" {
				return usageErrorf("--reply-to ID is required")
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				id, err := s.ResolveID(ctx, replyTo)
				if err != nil {
					return err
				}
				parent, err := s.Event(ctx, id)
				if err != nil {
					return err
				}
				since := parent.CreatedAt - 1 // a reply's clock may be behind
				// A reply names ID as its target; a bridge's batch reply, under the
				// batch's newest mention, quotes (q) each other mention it answers.
				f := nostr.Filter{Kinds: client.ContentKinds(), Tags: nostr.TagMap{"e": {parent.ID}}, Since: &since}
				if from != "" {
					pk, err := s.ResolveKey(ctx, from)
					if err != nil {
						return err
					}
					f.Authors = []string{pk}
				}
				q := f
				q.Tags = nostr.TagMap{"q": {parent.ID}}
				p := printer{cmd: cmd, m: s.NewModel()}
				err = s.Follow(ctx, func(ev nostr.Event) (bool, error) {
					if kinds.ReplyTo(&ev) != parent.ID && !ev.Tags.ContainsAny("q", []string{parent.ID}) {
						return false, nil
					}
					p.m.Apply(&ev)
					s.LoadNames(ctx, p.m, ev.PubKey)
					r, _ := p.m.Row(ev.ID)
					return true, p.row(chat.Added, r)
				}, f, q)
				if errors.Is(err, context.DeadlineExceeded) {
					return exitWith(exitTimeout, fmt.Errorf("no reply to %s within %s", parent.ID, timeoutOf(cmd)))
				}
				return err
			})
		},
	}
	cmd.Flags().StringVar(&replyTo, "reply-to", "", "id of the message whose reply to wait for (or the short id read and tail print)")
	cmd.Flags().StringVar(&from, "from", "", "only a reply by this key (npub, hex or a name)")
	addTimeoutFlag(cmd, 5*time.Second*60)
	return cmd
}
