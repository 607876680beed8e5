package main

import (
	"github.com/ainb/hive/internal/buildinfo"
	"github.com/spf13/cobra"
)

// version and commit are set by the Makefile's build (-ldflags -X) and
// never written at run time.
var (
	version string
	commit  string
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hive's version and commit (also: hive --version)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			i := buildinfo.Get(version, commit)
			return outputLine(cmd, i, "hive %s", i)
		},
	}
}
