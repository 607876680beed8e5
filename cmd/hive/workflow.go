package main

import (
	"fmt"
	"os"

	"github.com/ainb/hive/workflow"
	"github.com/spf13/cobra"
)

func newWorkflowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workflow",
		Short: "Workflows: triggers, steps and approval gates defined in YAML (spec/workflows.md)",
		Long: `A workflow is a YAML file: its name, its channel, on: (the triggers: message,
reaction, schedule, webhook, manual) and steps: run in order. See spec/workflows.md
and examples/workflows/.`,
	}
	usageErrors(cmd)
	cmd.AddCommand(newWorkflowValidateCmd(), newWorkflowNextCmd(), newWorkflowApplyCmd(), newWorkflowListCmd(), newWorkflowShowCmd(), newWorkflowServeCmd(), newWorkflowRunCmd(),
		newWorkflowEnableCmd(), newWorkflowDisableCmd(), newWorkflowDeleteCmd(), newWorkflowCancelCmd(), newWorkflowLogsCmd(), newWorkflowApproveCmd(), newWorkflowHookCmd())
	return cmd
}

// readWorkflowFile reads and parses a definition file: the definition (as
// far as it could be read) and its problems, or an error when the file
// cannot be read.
func readWorkflowFile(path string) (*workflow.Definition, *workflow.Errors, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("workflow file %s: %w", path, err)
	}
	d, err := workflow.Parse(path, src)
	if err != nil {
		return d, err.(*workflow.Errors), nil
	}
	return d, nil, nil
}

// validWorkflowFile reads a definition file that must be valid: its
// problems go to stderr, and the error says how to see them again.
func validWorkflowFile(cmd *cobra.Command, path string) (*workflow.Definition, error) {
	d, errs, err := readWorkflowFile(path)
	if err != nil {
		return nil, err
	}
	if errs != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), errs.Error())
		return nil, usageErrorf("%s is not a valid workflow: see `hive workflow validate %s`", path, path)
	}
	return d, nil
}
