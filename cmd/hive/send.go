package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
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
	var replyTo, quote string
	var mentions []string
	cmd := &cobra.Command{
		Use:   "send CHANNEL [TEXT|-] [--reply-to ID] [--quote ID] [--mention KEY]...",
		Short: "Send a message to a channel (TEXT, or standard input for - or none)",
		Example: `  hive send general "hello"
  echo "build is green" | hive send ops -
  hive send general "on it" --reply-to 1a2b3c4d --mention claude
  hive send general "agreed" --quote 1a2b3c4d
  hive send general "@claude what is 2+2?"`,
		Args: rangeArgs(1, 2, "CHANNEL [TEXT|-]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := textArg(cmd, args, 1)
			if err != nil {
				return err
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				pks, err := s.mentions(ctx, text, mentions)
				if err != nil {
					return err
				}
				var ev nostr.Event
				if replyTo != "" {
					parent, err := s.eventArg(ctx, replyTo)
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
				if quote != "" {
					quoted, err := s.eventArg(ctx, quote)
					if err != nil {
						return withHint(err, "the id given to --quote must be a message you can read")
					}
					if ev, err = client.Quote(ev, quoted, s.URL()); err != nil {
						return err
					}
					return publishRow(ctx, cmd, s, ev, quoted)
				}
				return publishRow(ctx, cmd, s, ev)
			})
		},
	}
	cmd.Flags().StringVar(&replyTo, "reply-to", "", "id of the message to answer (threads under its root)")
	cmd.Flags().StringVar(&quote, "quote", "", "id of a message to quote (shown above yours, as flotilla writes quotes)")
	cmd.Flags().StringArrayVar(&mentions, "mention", nil, "mention a key (npub, hex or a name; repeatable); @name in TEXT mentions too")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// publishRow publishes a message and prints it as a row (with the events it
// names, such as the message it quotes, applied to the model too).
func publishRow(ctx context.Context, cmd *cobra.Command, s *hubConn, ev nostr.Event, named ...nostr.Event) error {
	stored, err := s.Publish(ctx, ev)
	if err != nil {
		if errors.Is(err, client.ErrDeliveryUnknown) {
			return withHint(err, fmt.Sprintf("the message may be stored: check with `hive read %s` before sending again", client.ChannelOf(ev)))
		}
		return err
	}
	p := printer{cmd: cmd, m: s.NewModel()}
	p.m.Apply(&stored)
	keys := []string{stored.PubKey}
	for i := range named {
		p.m.Apply(&named[i])
		keys = append(keys, named[i].PubKey)
	}
	if err := s.LoadNames(ctx, p.m, keys...); err != nil {
		return err
	}
	r, _ := p.m.Row(stored.ID)
	out := p.out(chat.Added, r)
	return outputLine(cmd, out, "sent %s to %s as %s", stored.ID, client.ChannelOf(stored), out.Label)
}

func newDMCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dm KEY [TEXT|-]",
		Short: "Send a direct message (the DM channel is created on first use)",
		Args:  rangeArgs(1, 2, "KEY [TEXT|-]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := textArg(cmd, args, 1)
			if err != nil {
				return err
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				pk, err := s.ResolveKey(ctx, args[0])
				if err != nil {
					return err
				}
				if pk == s.PublicKey() {
					return usageErrorf("that is your own key: a DM needs another participant")
				}
				id := client.DMChannelID(s.PublicKey(), pk)
				if _, err := s.Publish(ctx, client.DMCreate(id, pk)); err != nil && !errors.Is(err, client.ErrDuplicate) {
					return err
				}
				pks, err := s.mentions(ctx, text, nil)
				if err != nil {
					return err
				}
				return publishRow(ctx, cmd, s, client.Message(id, text, pks...))
			})
		},
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// mentions are the keys a message mentions: those given (keys or names),
// then the @names of its text.
func (s *hubConn) mentions(ctx context.Context, text string, given []string) ([]string, error) {
	var out []string
	for _, m := range given {
		pk, err := s.ResolveKey(ctx, m)
		if err != nil {
			return nil, err
		}
		out = append(out, pk)
	}
	if !strings.Contains(text, "@") {
		return out, nil
	}
	n, err := s.Directory(ctx)
	if err != nil {
		return nil, err
	}
	inText, err := client.MentionsIn(n, text)
	for _, pk := range inText {
		if !slices.Contains(out, pk) {
			out = append(out, pk)
		}
	}
	return out, err
}

// eventArg fetches the event an id argument names (a full id or the short
// one read and tail print).
func (s *hubConn) eventArg(ctx context.Context, arg string) (nostr.Event, error) {
	id, err := s.ResolveID(ctx, arg)
	if err != nil {
		return nostr.Event{}, err
	}
	return s.Event(ctx, id)
}
