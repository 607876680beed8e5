package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/schedule"
	"github.com/spf13/cobra"
)

// nextSlot is one line of workflow next --json.
type nextSlot struct {
	Local string `json:"local"` // RFC 3339 with the zone's offset
	UTC   string `json:"utc"`   // RFC 3339, Z
	Zone  string `json:"zone"`  // IANA name
	Slot  string `json:"slot"`  // the wall-clock slot, e.g. 2026-03-29T02:30
	Cron  string `json:"cron"`
	at    time.Time
	note  string
}

// nextSlots are the first count slots at or after start of every schedule
// of d, merged in order.
func nextSlots(d *workflow.Definition, start time.Time, count int) []nextSlot {
	type dated struct {
		schedule.Slot
		cron string
	}
	var all []dated
	for _, s := range d.On.Schedule {
		for _, sl := range s.Schedule.Slots(start, count) {
			all = append(all, dated{sl, s.Schedule.Cron.Text})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At) })
	out := []nextSlot{}
	for _, sl := range all[:min(count, len(all))] {
		n := nextSlot{Local: sl.At.Format(time.RFC3339), UTC: sl.At.UTC().Format(time.RFC3339), Zone: sl.At.Location().String(), Slot: sl.Wall.Format("2006-01-02T15:04"), Cron: sl.cron, at: sl.At}
		switch {
		case sl.Gap:
			n.note = fmt.Sprintf("  (%s is skipped by the clock change: fires when it ends)", sl.Wall.Format("15:04"))
		case sl.Ambiguous:
			n.note = fmt.Sprintf("  (%s happens twice: fires at the first)", sl.Wall.Format("15:04"))
		}
		out = append(out, n)
	}
	return out
}

func newWorkflowNextCmd() *cobra.Command {
	var from, channel string
	var count int
	cmd := &cobra.Command{
		Use:   "next NAME|FILE [--from TIME] [--count N]",
		Short: "The next times a workflow's schedules fire, in their zone and in UTC",
		Long: `Print the next slots of every schedule trigger of a workflow file, or of the
applied workflow NAME (among the channels you are in; --channel picks one), in
order: the local time in the schedule's zone and the UTC instant. Each
wall-clock slot fires once: a slot inside a spring-forward gap fires at the first
instant after the gap, an ambiguous fall-back slot at its first occurrence.
--from TIME (RFC 3339, default now) shows the slots at or after it.
With --json one line per slot: {"local", "utc", "zone", "slot", "cron"}.`,
		Args: exactArgs(1, "NAME|FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			if from != "" {
				t, err := time.Parse(time.RFC3339, from)
				if err != nil {
					return usageErrorf("--from %q is not an RFC 3339 time: write e.g. 2026-03-29T00:00:00+01:00 or 2026-03-29T00:00:00Z", from)
				}
				start = t
			}
			if count < 1 || count > 1000 {
				return usageErrorf("--count %d: it is 1 to 1000", count)
			}
			d, err := definitionArg(cmd, args[0], channel)
			if err != nil {
				return err
			}
			if len(d.On.Schedule) == 0 {
				return usageErrorf("workflow %s has no schedule trigger: next shows the slots of on: schedule:", d.Name)
			}
			for _, n := range nextSlots(d, start, count) {
				err := output(cmd, n, func(w io.Writer) error {
					_, err := fmt.Fprintf(w, "%s %s  %s  %s  %s%s\n", n.at.Format("Mon 2006-01-02 15:04"), n.at.Format("MST -07:00"), n.UTC, n.Zone, n.Cron, n.note)
					return err
				})
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "show the slots at or after TIME (RFC 3339; default now)")
	cmd.Flags().IntVar(&count, "count", 5, "how many slots (1 to 1000)")
	cmd.Flags().StringVar(&channel, "channel", "", "for NAME: the channel, when two workflows share the name")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// definitionArg reads a workflow file, or, when arg is no file, the applied
// workflow of that name from the hub.
func definitionArg(cmd *cobra.Command, arg, channel string) (*workflow.Definition, error) {
	if _, err := os.Stat(arg); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return validWorkflowFile(cmd, arg)
	}
	var d *workflow.Definition
	err := withHub(cmd, func(ctx context.Context, s *hubConn) error {
		w, err := findWorkflow(ctx, s, arg, channel)
		if err != nil {
			return err
		}
		it, def := viewWorkflow(w)
		if it.Status == "invalid" {
			return usageErrorf("workflow %s does not validate here: %s", arg, it.Reason)
		}
		d = def
		return nil
	})
	return d, err
}
