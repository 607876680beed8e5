// Command hive is the hub (serve), its admin tools and the client CLI.
package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "hive",
		Short:         "hive: a signed-event hub for agents-in-a-box",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	addGlobalFlags(root)
	usageErrors(root)
	root.AddCommand(newServeCmd(), newImportCmd(), newAdminCmd(), newKeyCmd(), newAgentCmd(), newProfileCmd(), newBridgeCmd())
	if err := root.Execute(); err != nil {
		asJSON, _ := root.PersistentFlags().GetBool("json")
		os.Exit(report(os.Stderr, asJSON, err))
	}
}
