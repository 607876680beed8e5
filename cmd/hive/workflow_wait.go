package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/spf13/cobra"
)

// runWait is what awaitRun waits for and how it tells the end.
type runWait struct {
	ID, Runner string
	// Want is the final status that exits 0; any other exits 5.
	Want string
	// Shown goes before the end in words on the printed line; Otherwise
	// before it in the error when the status is not Want.
	Shown, Otherwise string
	// Late is the error when --timeout passes first (exit 6).
	Late error
}

// awaitRun waits for run w.ID's final record from its runner and prints it.
func awaitRun(ctx context.Context, cmd *cobra.Command, s *hubConn, w runWait) error {
	rec, err := s.WaitRun(ctx, w.ID, w.Runner, nil)
	if errors.Is(err, context.DeadlineExceeded) {
		return exitWith(exitTimeout, w.Late)
	}
	if err != nil {
		return err
	}
	if err := output(cmd, rec, func(o io.Writer) error {
		_, err := fmt.Fprintln(o, w.Shown+describeEnd(rec))
		return err
	}); err != nil {
		return err
	}
	if rec.Status != w.Want {
		return exitWith(exitConflict, fmt.Errorf("run %s %s%s", w.ID[:8], w.Otherwise, describeEnd(rec)))
	}
	return nil
}

// describeEnd is a final record in words.
func describeEnd(rec client.RunRecord) string {
	switch rec.Status {
	case kinds.RunFinished:
		return fmt.Sprintf("finished in %s", (time.Duration(rec.Ms) * time.Millisecond).Round(time.Millisecond))
	case kinds.RunCancelled:
		return "cancelled: " + rec.Reason
	}
	return rec.Status + ": " + rec.Reason
}
