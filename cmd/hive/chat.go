package main

import (
	"context"
	"os"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/tui/chatui"
	"github.com/nbd-wtf/go-nostr/nip44"
	"github.com/spf13/cobra"
)

func newChatCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chat [CHANNEL]",
		Short: "The terminal chat: channels, timeline, threads, agents (press ? for keys)",
		Long: `Open the terminal chat as the profile's member (or --hub/--key): a sidebar of
your channels and DMs with unread and mention counts and the agents' working
state, the open channel's timeline, a thread pane, and a composer (Enter sends,
Alt-Enter a new line, Alt-E writes the message in $VISUAL or $EDITOR, Tab
completes @names and /commands, Up edits your last message). /help or ? lists the keys and commands; keys are rebound in
chat-keys.toml in $HIVE_HOME.`,
		Example: `  hive chat
  hive chat general --profile alice`,
		Args: rangeArgs(0, 1, "[CHANNEL]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			home, err := client.Home(os.LookupEnv)
			if err != nil {
				return err
			}
			keys, err := chatui.LoadKeys(home)
			if err != nil {
				return usageErrorf("%v", err)
			}
			dctx, cancel := context.WithTimeout(cmd.Context(), timeoutOf(cmd))
			s, err := dial(dctx, cmd)
			cancel()
			if err != nil {
				return err
			}
			defer s.Close()
			editor := os.Getenv("VISUAL")
			if editor == "" {
				editor = os.Getenv("EDITOR")
			}
			opt := chatui.Options{Profile: s.t.profile, Pinned: s.t.pin != "", Keys: keys, Editor: editor,
				ObserverKey: func(agent string) ([32]byte, error) { return nip44.GenerateConversationKey(agent, s.keys.SecretHex) }}
			if len(args) > 0 {
				opt.Channel = args[0]
			}
			return chatui.Run(cmd.Context(), chatui.New(cmd.Context(), s.Client, opt), cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
