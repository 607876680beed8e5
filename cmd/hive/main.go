// Command hive is the hub (serve), its admin tools and the client CLI.
package main

import (
	"errors"
	"fmt"
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
	root.AddCommand(newServeCmd(), newImportCmd(), newAdminCmd(), newKeyCmd(), newAgentCmd(), newBridgeCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "hive:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
