package main

import (
	"fmt"
	"io"

	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

// validateOutput is validate's --json object, printed also when invalid.
type validateOutput struct {
	OK       bool             `json:"ok"`
	Name     string           `json:"name"`
	Triggers int              `json:"triggers"`
	Steps    int              `json:"steps"`
	Errors   []workflow.Error `json:"errors"`
}

func newWorkflowValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a workflow file offline: every problem with FILE:LINE:COL and the fix",
		Long: `Check a workflow definition without a hub. Every problem is printed as
FILE:LINE:COL: what, and the fix (1-based; for an expression the message also
gives the column inside the expression). Exit 0 when valid, 1 when not.
With --json one object on stdout, also when invalid:
{"ok", "name", "triggers", "steps", "errors": [{"line", "col", "message"}]}.`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			d, errs, err := readWorkflowFile(path)
			if err != nil {
				return err
			}
			out := validateOutput{OK: errs == nil, Errors: []workflow.Error{}}
			if d != nil {
				out.Name, out.Triggers, out.Steps = d.Name, d.On.Count(), len(d.Steps)
			}
			if errs != nil {
				out.Errors = errs.List
			}
			if jsonOutput(cmd) {
				if err := output(cmd, out, nil); err != nil {
					return err
				}
				if errs != nil {
					return exitWith(exitUsage, errs)
				}
				return nil
			}
			if errs != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), errs.Error())
				n := len(errs.List)
				return usageErrorf("%s is not a valid workflow: %d %s (above)", path, n, plural(n, "problem", "problems"))
			}
			return output(cmd, out, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "ok: %s (%d %s, %d %s)\n", d.Name, out.Triggers, plural(out.Triggers, "trigger", "triggers"), out.Steps, plural(out.Steps, "step", "steps"))
				return err
			})
		},
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
