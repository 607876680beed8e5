package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

// textArg is the message text: the argument, or standard input for "-" or
// when it is missing.
func textArg(cmd *cobra.Command, args []string, i int) (string, error) {
	if len(args) > i && args[i] != "-" {
		return args[i], nil
	}
	b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 128<<10+1))
	if err != nil {
		return "", err
	}
	if len(b) > 128<<10 {
		return "", usageErrorf("message on standard input is over 128 KiB")
	}
	text := strings.TrimRight(string(b), "\n")
	if text == "" {
		return "", usageErrorf("empty message: give TEXT or pipe it on standard input")
	}
	return text, nil
}

func newSendCmd() *cobra.Command {
	var replyTo string
	var mentions []string
	cmd := &cobra.Command{
		Use:   "send CHANNEL [TEXT|-] [--reply-to ID] [--mention NPUB]...",
		Short: "Send a message to a channel (TEXT, or standard input for - or none)",
		Example: `  hive send general "hello"
  echo "build is green" | hive send ops -
  hive send general "on it" --reply-to <id> --mention npub1...`,
		Args: rangeArgs(1, 2, "CHANNEL [TEXT|-]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := textArg(cmd, args, 1)
			if err != nil {
				return err
			}
			var pks []string
			for _, m := range mentions {
				pk, err := pubkeyArg(m)
				if err != nil {
					return err
				}
				pks = append(pks, pk)
			}
			return withSession(cmd, func(ctx context.Context, s *session) error {
				var ev nostr.Event
				if replyTo != "" {
					parent, err := s.Event(ctx, replyTo)
					if err != nil {
						return withHint(err, "the id given to --reply-to must be a message you can read")
					}
					ev = client.Reply(parent, text, pks...)
				} else {
					ch, err := s.ResolveChannel(ctx, args[0])
					if err != nil {
						return err
					}
					ev = client.Message(ch.ID, text, pks...)
				}
				return publishRow(ctx, cmd, s, ev)
			})
		},
	}
	cmd.Flags().StringVar(&replyTo, "reply-to", "", "id of the message to answer (threads under its root)")
	cmd.Flags().StringArrayVar(&mentions, "mention", nil, "mention a key (npub or hex; repeatable)")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// publishRow publishes a message and prints it as a row.
func publishRow(ctx context.Context, cmd *cobra.Command, s *session, ev nostr.Event) error {
	stored, err := s.Publish(ctx, ev)
	if err != nil {
		if errors.Is(err, client.ErrDeliveryUnknown) {
			return withHint(err, fmt.Sprintf("the message may be stored: check with `hive read %s` before sending again", client.ChannelOf(ev)))
		}
		return err
	}
	return output(cmd, client.RowOf(stored), func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "sent %s to %s\n", stored.ID, client.ChannelOf(stored))
		return err
	})
}

func newDMCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dm NPUB [TEXT|-]",
		Short: "Send a direct message (the DM channel is created on first use)",
		Args:  rangeArgs(1, 2, "NPUB [TEXT|-]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pk, err := pubkeyArg(args[0])
			if err != nil {
				return err
			}
			text, err := textArg(cmd, args, 1)
			if err != nil {
				return err
			}
			return withSession(cmd, func(ctx context.Context, s *session) error {
				if pk == s.PublicKey() {
					return usageErrorf("that is your own key: a DM needs another participant")
				}
				id := client.DMChannelID(s.PublicKey(), pk)
				if _, err := s.Publish(ctx, client.DMCreate(id, pk)); err != nil && !errors.Is(err, client.ErrDuplicate) {
					return err
				}
				return publishRow(ctx, cmd, s, client.Message(id, text))
			})
		},
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
