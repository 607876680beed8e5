package main

import "github.com/spf13/cobra"

func newWorkflowDisableCmd() *cobra.Command { return workflowToggleCmd(false) }
