package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newWaitCmd() *cobra.Command {
	var replyTo, from string
	cmd := &cobra.Command{
		Use:   "wait --reply-to ID [--from NPUB] [--timeout 5m]",
		Short: "Block until a reply to message ID arrives (from NPUB if given) and print it; exit 6 on timeout",
		Example: `  id=$(hive send ops "@agent status?" --mention npub1agent... --json | jq -r .id)
  hive wait --reply-to "$id" --from npub1agent... --timeout 2m --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if replyTo == "" {
				return usageErrorf("--reply-to ID is required")
			}
			var fromPK string
			if from != "" {
				var err error
				if fromPK, err = pubkeyArg(from); err != nil {
					return err
				}
			}
			return withSession(cmd, func(ctx context.Context, s *session) error {
				parent, err := s.Event(ctx, replyTo)
				if err != nil {
					return err
				}
				since := parent.CreatedAt
				f := nostr.Filter{Kinds: client.ContentKinds(), Tags: nostr.TagMap{"e": {parent.ID}}, Since: &since}
				if fromPK != "" {
					f.Authors = []string{fromPK}
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
						if client.ReplyTo(ev) == parent.ID {
							return printRow(cmd, client.RowOf(ev))
						}
					case <-ctx.Done():
						return exitWith(exitTimeout, fmt.Errorf("no reply to %s within %s", parent.ID, timeoutOf(cmd)))
					}
				}
			})
		},
	}
	cmd.Flags().StringVar(&replyTo, "reply-to", "", "id of the message whose reply to wait for")
	cmd.Flags().StringVar(&from, "from", "", "only a reply by this key (npub or hex)")
	addTimeoutFlag(cmd, 5*time.Minute)
	return cmd
}
