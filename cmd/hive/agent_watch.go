package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/client/termtext"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/tui/agentwatch"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// watcher is one owner's view of one agent: the connection, the key to
// open frames, and how to send control frames.
type watcher struct {
	s     *hubConn
	agent string
	ck    [32]byte
}

// control seals and publishes a control frame to the agent.
func (w *watcher) control(ctx context.Context, c observer.Control) error {
	ev, err := observer.SealFrame(c, w.ck, w.agent)
	if err != nil {
		return err
	}
	_, err = w.s.Publish(ctx, *ev)
	return err
}

func newAgentWatchCmd() *cobra.Command {
	var plain bool
	cmd := &cobra.Command{
		Use:   "watch AGENT --key OWNER_OR_DEVICE_KEYFILE",
		Short: "Watch an agent's turns live (observer frames) and answer its permission requests",
		Long: `Subscribe to the observer frames an agent's bridge sends its owner, decrypt
them and show a live transcript: message text, thoughts, tool calls with their
status, the plan, and permission requests. On a terminal, press 1-9 to pick
an option of the oldest pending permission request, c to cancel the running
turn, q to quit. When stdout is not a terminal (or with --plain) one line is
printed per change; --json prints every decrypted frame as one JSON line.

The key is the agent's owner's, or a paired device's of the owner (hive pair /
hive join; its profile holds the attestation, or give --auth-tag). On start it
sends the bridge a watch control frame, renewed every 2 minutes: the bridge
sends again every permission request still waiting for an answer (so a watch
started after the request can answer it), and a device receives the frames
while it watches.`,
		Example: `  hive agent watch npub1... --key owner.key --hub ws://127.0.0.1:7447
  hive agent watch npub1... --json | jq .msg.method     # with the current profile`,
		Args: exactArgs(1, "AGENT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			dctx, cancel := context.WithTimeout(ctx, timeoutOf(cmd))
			s, err := dial(dctx, cmd)
			cancel()
			if err != nil {
				return err
			}
			defer s.Close()
			rctx, cancel := context.WithTimeout(ctx, timeoutOf(cmd))
			agent, err := s.ResolveKey(rctx, args[0])
			cancel()
			if err != nil {
				return err
			}
			ck, err := nip44.GenerateConversationKey(agent, s.keys.SecretHex)
			if err != nil {
				return usageErrorf("AGENT: %v", err)
			}
			w := &watcher{s: s, agent: agent, ck: ck}
			frames, errc := w.frames(ctx)
			// The watch control frame makes the bridge re-send the permission
			// requests still waiting, and gives a paired device its lease.
			if err := w.leaseFrames(ctx); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case jsonOutput(cmd):
				return watchJSON(out, frames, errc)
			case plain || !isTerminal(out):
				return watchLines(termtext.NewWriter(out), frames, errc)
			}
			if err := agentwatch.Run(ctx, agentwatch.New(ctx, w.agent, frames, w.control)); err != nil {
				return err
			}
			return firstErr(errc)
		},
	}
	addTimeoutFlag(cmd, 10*time.Second)
	cmd.Flags().BoolVar(&plain, "plain", false, "print one line per change even on a terminal")
	return cmd
}

// leaseFrames keeps the watch (client.KeepWatch): the owner gets the
// pending permission requests again, a paired device the frames, from
// whenever the bridge is up, until ctx ends.
func (w *watcher) leaseFrames(ctx context.Context) error {
	if err := w.s.KeepWatch(ctx, w.agent, w.ck); err != nil {
		return withHint(err, "only the agent's owner and the owner's paired devices (hive pair / hive join) can watch an agent")
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// frames subscribes to the agent's frames to this owner and decrypts them.
func (w *watcher) frames(ctx context.Context) (<-chan observer.Frame, <-chan error) {
	out := make(chan observer.Frame, 256)
	errc := make(chan error, 1)
	// The REQ is on the wire before this returns, so frames the bridge sends
	// in answer to the watch control frame that follows are not missed.
	sub, err := w.s.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.ObserverFrame}, Authors: []string{w.agent}, Tags: nostr.TagMap{"p": {w.s.PublicKey()}}})
	if err != nil {
		errc <- err
		close(out)
		return out, errc
	}
	go func() {
		defer close(out)
		err := w.s.FollowSub(ctx, sub, func(ev nostr.Event) (bool, error) {
			var fr observer.Frame
			if observer.OpenFrame(&ev, w.ck, &fr) != nil {
				return false, nil // not for this agent and owner pair
			}
			select {
			case out <- fr:
				return false, nil
			case <-ctx.Done():
				return true, nil
			}
		})
		if err != nil && ctx.Err() == nil {
			errc <- err
		}
	}()
	return out, errc
}

func watchJSON(out io.Writer, frames <-chan observer.Frame, errc <-chan error) error {
	for fr := range frames {
		if err := writeJSON(out, fr); err != nil {
			return err
		}
	}
	return firstErr(errc)
}

func watchLines(out io.Writer, frames <-chan observer.Frame, errc <-chan error) error {
	tr := observer.NewTranscript()
	for fr := range frames {
		for _, ev := range tr.Apply(fr) {
			fmt.Fprintln(out, agentwatch.EventLine(ev))
		}
	}
	return firstErr(errc)
}

func firstErr(errc <-chan error) error {
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}
