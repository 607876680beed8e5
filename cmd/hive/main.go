// Command hive is the hub (serve), its admin tools and the client CLI.
package main

import (
	"os"
	"slices"

	"github.com/ainb/hive/internal/buildinfo"
	"github.com/spf13/cobra"
)

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		// a flag error stops parsing before --json is read: look for it
		asJSON, _ := root.PersistentFlags().GetBool("json")
		asJSON = asJSON || slices.Contains(os.Args[1:], "--json") || slices.Contains(os.Args[1:], "--json=true")
		os.Exit(report(os.Stderr, asJSON, err))
	}
}

// newRootCmd is the command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "hive",
		Short:         "hive: a signed-event hub for agents-in-a-box",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = buildinfo.Get(version, commit).String()
	root.SetVersionTemplate("hive {{.Version}}\n")
	addGlobalFlags(root)
	usageErrors(root)
	root.AddCommand(newServeCmd(), newImportCmd(), newAdminCmd(), newKeyCmd(), newAgentCmd(), newProfileCmd(),
		newMemberCmd(), newInviteCmd(), newChannelCmd(), newSendCmd(), newReadCmd(), newSearchCmd(), newTailCmd(), newReactCmd(), newEditCmd(), newDeleteCmd(), newDMCmd(), newChatCmd(), newWaitCmd(), newWhoCmd(), newStatusCmd(),
		newBridgeCmd(), newAgentGuardCmd(), newMCPCmd(), newWorkflowCmd(), newPairCmd(), newJoinCmd(), newDeviceCmd(), newVersionCmd())
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}
