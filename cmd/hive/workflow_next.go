package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

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
}

func newWorkflowNextCmd() *cobra.Command {
	var from string
	var count int
	cmd := &cobra.Command{
		Use:   "next FILE [--from TIME] [--count N]",
		Short: "The next times a workflow's schedules fire, in their zone and in UTC",
		Long: `Print the next slots of every schedule trigger of a workflow file, in order:
the local time in the schedule's zone and the UTC instant. Each wall-clock slot
fires once: a slot inside a spring-forward gap fires at the first instant after
the gap, an ambiguous fall-back slot at its first occurrence.
--from TIME (RFC 3339, default now) shows the slots at or after it.
With --json one line per slot: {"local", "utc", "zone", "slot", "cron"}.`,
		Args: exactArgs(1, "FILE"),
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
			path := args[0]
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return exitWith(exitNotFound, fmt.Errorf("no workflow file %s: next reads a workflow file (naming an applied workflow needs `hive workflow apply`, not in this hive yet)", path))
			}
			d, errs, err := readWorkflowFile(path)
			if err != nil {
				return err
			}
			if errs != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), errs.Error())
				return usageErrorf("%s is not a valid workflow: see `hive workflow validate %s`", path, path)
			}
			if len(d.On.Schedule) == 0 {
				return usageErrorf("workflow %s has no schedule trigger: next shows the slots of on: schedule:", d.Name)
			}
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
			all = all[:min(count, len(all))]
			for _, sl := range all {
				v := nextSlot{Local: sl.At.Format(time.RFC3339), UTC: sl.At.UTC().Format(time.RFC3339), Zone: sl.At.Location().String(), Slot: sl.Wall.Format("2006-01-02T15:04"), Cron: sl.cron}
				err := output(cmd, v, func(w io.Writer) error {
					note := ""
					switch {
					case sl.Gap:
						note = fmt.Sprintf("  (%s is skipped by the clock change: fires when it ends)", sl.Wall.Format("15:04"))
					case sl.Ambiguous:
						note = fmt.Sprintf("  (%s happens twice: fires at the first)", sl.Wall.Format("15:04"))
					}
					_, err := fmt.Fprintf(w, "%s %s  %s  %s  %s%s\n", sl.At.Format("Mon 2006-01-02 15:04"), sl.At.Format("MST -07:00"), v.UTC, v.Zone, v.Cron, note)
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
	return cmd
}
