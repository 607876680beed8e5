package agentbridge

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// deathSignal is what the kernel sends an agent's direct child when the
// bridge dies (PR_SET_PDEATHSIG): a guard kills its whole group on it; an
// agent started without a guard dies of it (its default action).
const deathSignal = syscall.SIGHUP

// RunGuard runs command as the guard of an agent process group, with the
// guard's stdio, and returns the exit code to exit with. The bridge starts
// the guard as the leader of the agent's process group, so the group's
// signals reach both; the guard ignores SIGTERM and SIGINT (they are for the
// agent) and waits for the agent. When the bridge dies without stopping its
// agents (kill -9, a crash), the kernel sends the guard deathSignal and the
// guard SIGKILLs the whole group: adapters that ignore stdin EOF
// (codex-acp, claude-agent-acp) or leave native children behind (codex-acp's
// wrapper) would otherwise outlive the bridge.
func RunGuard(command []string) int {
	if len(command) == 0 {
		fmt.Fprintln(os.Stderr, "agent guard: no command")
		return 2
	}
	death := make(chan os.Signal, 1)
	signal.Notify(death, deathSignal)
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "agent guard: starting %q: %v\n", command[0], err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return exit.ExitCode()
		}
		return 0
	case <-death:
		syscall.Kill(0, syscall.SIGKILL) // the guard's own group: the agent and everything it started
		return 137
	}
}
