// Command pgrun runs a command with a throwaway PostgreSQL database: it
// starts a cluster (as the tests do), creates a database, runs the command
// with HIVE_STORE set to its URL, and removes the cluster. make test-interop
// uses it to run the nostr-tools suite against a PostgreSQL-backed hub.
//
//	go run ./internal/pgtest/pgrun node --test
//
// -durable flushes every commit to disk (for benchmarks); by default the
// cluster runs with fsync off, as in the tests.
//
// Without PostgreSQL installed it says so and exits 0, unless
// HIVE_REQUIRE_POSTGRES is set.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/ainb/hive/internal/pgtest"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	durable := len(args) > 0 && args[0] == "-durable"
	if durable {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: pgrun [-durable] COMMAND [ARG...]")
		return 2
	}
	start := pgtest.Start
	if durable {
		start = pgtest.StartDurable // commits flushed to disk, for benchmarks
	}
	c := start()
	defer c.Stop()
	if why := c.Absent(); why != "" {
		fmt.Fprintln(os.Stderr, "pgrun: skipping:", why)
		if os.Getenv("HIVE_REQUIRE_POSTGRES") != "" {
			return 1
		}
		return 0
	}
	dsn, _, err := c.CreateDB("hive")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgrun:", err)
		return 1
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "HIVE_STORE="+dsn)
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "pgrun:", err)
		return 1
	}
	return 0
}
