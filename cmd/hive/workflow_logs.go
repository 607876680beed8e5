package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/termtext"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newWorkflowLogsCmd() *cobra.Command {
	var channel string
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs NAME|RUN [--follow]",
		Short: "A workflow's or a run's records, oldest first",
		Long: `Print the run records (kind 40461) of a run (its id, as hive workflow run
printed it) or of every run of the workflow NAME, oldest first: time, run, status,
step and reason. --json: one line a record, {"run", "workflow", "status", "step",
"index", "of", "outcome", "by", "reason", "until", "ms", "card", "runner", "id",
"created_at"} (by: the hex key of whoever cancelled). --follow goes on printing new
records until interrupted.`,
		Args: exactArgs(1, "NAME|RUN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeoutOf(cmd))
			if follow {
				cancel()
				ctx, cancel = context.WithCancel(cmd.Context())
			}
			defer cancel()
			s, err := dial(ctx, cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			f, err := logsFilter(ctx, s, args[0], channel)
			if err != nil {
				return err
			}
			evs, err := s.Query(ctx, f)
			if err != nil {
				return err
			}
			sort.Slice(evs, func(i, j int) bool { return kinds.AtMillis(&evs[i]) < kinds.AtMillis(&evs[j]) })
			seen := map[string]bool{}
			print := func(ev nostr.Event) error {
				rec, _, ok := client.ParseRunRecord(ev)
				if !ok || seen[ev.ID] {
					return nil
				}
				seen[ev.ID] = true
				return output(cmd, rec, func(o io.Writer) error {
					_, err := fmt.Fprintln(o, logLine(rec))
					return err
				})
			}
			for _, ev := range evs {
				if err := print(ev); err != nil {
					return err
				}
			}
			if !follow {
				return nil
			}
			now := nostr.Now()
			f.Since, f.Limit = &now, 0
			sub, err := s.Subscribe(ctx, f)
			if err != nil {
				return err
			}
			defer sub.Close()
			for ev := range sub.Events() {
				if err := print(ev); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&channel, "channel", "", "the workflow's channel, when two share its name")
	cmd.Flags().BoolVar(&follow, "follow", false, "go on printing new records")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// logsFilter is the records of run id ARG (64 hex), else of the workflow named ARG.
func logsFilter(ctx context.Context, s *hubConn, arg, channel string) (nostr.Filter, error) {
	if nostr.IsValid32ByteHex(arg) {
		run, err := s.Run(ctx, arg)
		if err != nil {
			return nostr.Filter{}, err
		}
		return nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{run.Runner}, Tags: nostr.TagMap{kinds.RunTag: {arg}}, Limit: 5000}, nil
	}
	w, _, err := resolveWorkflow(ctx, s, arg, channel)
	if err != nil {
		return nostr.Filter{}, err
	}
	return nostr.Filter{Kinds: []int{kinds.RunRecord}, Authors: []string{w.Runner}, Tags: nostr.TagMap{"a": {w.Address()}}, Limit: 5000}, nil
}

// logLine is one record in words: time, run, status, step, reason.
func logLine(r client.RunRecord) string {
	parts := []string{time.Unix(r.CreatedAt, 0).Format("2006-01-02 15:04:05"), r.Run[:min(8, len(r.Run))], r.Status}
	if r.Step != "" {
		parts = append(parts, fmt.Sprintf("%s %d/%d", r.Step, r.Index, r.Of))
	}
	if r.Outcome != "" {
		parts = append(parts, r.Outcome)
	}
	if r.Until > 0 {
		parts = append(parts, "until "+time.Unix(r.Until, 0).Format("15:04:05"))
	}
	if r.Ms > 0 {
		parts = append(parts, (time.Duration(r.Ms) * time.Millisecond).String())
	}
	if r.Reason != "" {
		parts = append(parts, "· "+termtext.Line(r.Reason))
	}
	return strings.Join(parts, " ")
}
