package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/webhook"
	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

// hookAnswer is what hive workflow hook prints: the URL and hook id, the
// secret only when one was just made.
type hookAnswer struct {
	URL     string `json:"url,omitempty"`
	Hook    string `json:"hook"`
	Secret  string `json:"secret,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
}

func newWorkflowHookCmd() *cobra.Command {
	var channel string
	var rotate, del bool
	cmd := &cobra.Command{
		Use:   "hook NAME",
		Short: "Show, make, rotate or delete a workflow's webhook URL and secret (a channel owner or admin)",
		Long: `The first time, makes the workflow's webhook: prints its URL (the hub's URL with
ws:// made http:// and wss:// https://, then /hook/<id>) and its secret, once
(whsec_ and the base64 of 32 random bytes). The secret is sealed (NIP-44) to the
hub's key in a kind 30462 event of the channel, so that only the hub, which
verifies deliveries, can read it. Later, prints the URL only; --rotate makes a
new secret (the URL stays), --delete removes the webhook. A sender signs
either the Standard Webhooks way (webhook-id, webhook-timestamp,
webhook-signature) or GitHub's (X-Hub-Signature-256, with the secret's text as
the key); see spec/workflows.md, "Webhooks", and hive workflow hook send.`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rotate && del {
				return usageErrorf("give --rotate or --delete, not both")
			}
			return withWorkflow(cmd, args[0], channel, func(ctx context.Context, s *hubConn, w client.Workflow, d *workflow.Definition) error {
				return workflowHook(ctx, cmd, s, w, d, rotate, del)
			})
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "the workflow's channel, when two share its name")
	cmd.Flags().BoolVar(&rotate, "rotate", false, "make a new secret (the URL stays; the old secret stops working)")
	cmd.Flags().BoolVar(&del, "delete", false, "delete the webhook: its URL answers 401 from then on")
	cmd.AddCommand(newWorkflowHookSendCmd())
	return cmd
}

func workflowHook(ctx context.Context, cmd *cobra.Command, s *hubConn, w client.Workflow, d *workflow.Definition, rotate, del bool) error {
	cur, err := s.Hook(ctx, w)
	if err != nil {
		return err
	}
	id := ""
	if cur != nil {
		if t := cur.Tags.Find("w"); len(t) >= 2 {
			id = t[1]
		}
	}
	if del {
		if cur == nil {
			return exitWith(exitNotFound, fmt.Errorf("%s has no webhook to delete", w.Name))
		}
		ev, err := s.HookEvent(w, cur, "", "", "")
		if err == nil {
			_, err = s.Publish(ctx, ev)
		}
		if err != nil {
			return err
		}
		return outputLine(cmd, hookAnswer{Hook: id, Deleted: true}, "deleted the webhook of %s (hook %s)", w.Name, id)
	}
	if d != nil && d.On.Webhook == nil {
		return usageErrorf("%s has no webhook trigger: add `webhook: {}` under on: and apply it again", w.Name)
	}
	ans := hookAnswer{Hook: id}
	if cur == nil || rotate {
		if ans.Hook == "" {
			if ans.Hook, err = webhook.NewHookID(); err != nil {
				return err
			}
		}
		if ans.Secret, err = webhook.NewSecret(); err != nil {
			return err
		}
		hub, err := s.HubKey(ctx)
		if err != nil {
			return err
		}
		ev, err := s.HookEvent(w, cur, hub, ans.Hook, ans.Secret)
		if err == nil {
			_, err = s.Publish(ctx, ev)
		}
		if err != nil {
			return err
		}
	}
	if ans.URL, err = webhook.URL(s.URL(), ans.Hook); err != nil {
		return err
	}
	return output(cmd, ans, func(o io.Writer) error {
		fmt.Fprintf(o, "url:    %s\n", ans.URL)
		if ans.Secret == "" {
			_, err := fmt.Fprintln(o, "secret: shown once, when it was made (--rotate makes a new one)")
			return err
		}
		_, err := fmt.Fprintf(o, "secret: %s\n(shown this once: give it to the sender; --rotate makes a new one)\n", ans.Secret)
		return err
	})
}
