package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newImportCmd() *cobra.Command {
	var data, adminFlag, storeURL string
	var skipVerify bool
	cmd := &cobra.Command{
		Use:   "import FILE.jsonl",
		Short: "Load signed events (one JSON object per line) into a stopped hub's event log, through the hub's rules",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := os.Stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return exitWith(exitNotFound, err)
				}
				defer f.Close()
				in = f
			}
			if err := os.MkdirAll(data, 0o700); err != nil {
				return fmt.Errorf("data directory: %w", err)
			}
			unlock, err := dataDir(data).lock() // a stopped hub's log: never a live one's
			if err != nil {
				return err
			}
			defer unlock()
			openStore, err := storeOpener(storeURL, data)
			if err != nil {
				return err
			}
			h, _, err := openOfflineHub(data, adminFlag, openStore)
			if err != nil {
				return err
			}
			defer h.Close()
			res, err := importEvents(cmd.Context(), h.Store, in, !skipVerify)
			if err == nil {
				err = analyze(cmd.Context(), h.Store)
			}
			if perr := outputLine(cmd, map[string]int64{"stored": res.stored, "duplicate": res.dup, "rejected": res.rejected},
				"stored %d, duplicate %d, rejected %d", res.stored, res.dup, res.rejected); perr != nil {
				return perr
			}
			return err
		},
	}
	cmd.Flags().StringVar(&data, "data", ".hive", "data directory of the hub (stop the hub first)")
	cmd.Flags().StringVar(&adminFlag, "admin", "", "admin pubkey, as given to hive serve (default: DATA/admin.key)")
	cmd.Flags().StringVar(&storeURL, "store", "", "import into this postgres:// log instead of the SQLite one in --data")
	cmd.Flags().BoolVar(&skipVerify, "skip-verify", false, "do not check ids and signatures (only for events you produced yourself)")
	return cmd
}

type importResult struct{ stored, dup, rejected int64 }

func importEvents(ctx context.Context, st store.Log, in io.Reader, verify bool) (importResult, error) {
	var res importResult
	var wg sync.WaitGroup
	var firstErr atomic.Value
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		if !utf8.Valid(sc.Bytes()) {
			return res, exitWith(exitUsage, fmt.Errorf("line %d: not valid UTF-8", line))
		}
		ev := &nostr.Event{}
		if err := ev.UnmarshalJSON(sc.Bytes()); err != nil {
			return res, exitWith(exitUsage, fmt.Errorf("line %d: not an event: %v", line, err))
		}
		if verify {
			if !ev.CheckID() {
				return res, exitWith(exitUsage, fmt.Errorf("line %d: id does not match the event", line))
			}
			if ok, _ := ev.CheckSignature(); !ok {
				return res, exitWith(exitUsage, fmt.Errorf("line %d: bad signature", line))
			}
		}
		wg.Add(1)
		n := line
		err := st.PublishAsync(ctx, ev, func(_ []*nostr.Event, err error) {
			defer wg.Done()
			switch {
			case err == nil:
				atomic.AddInt64(&res.stored, 1)
			case errors.Is(err, store.ErrDuplicate):
				atomic.AddInt64(&res.dup, 1)
			default:
				atomic.AddInt64(&res.rejected, 1)
				firstErr.CompareAndSwap(nil, fmt.Errorf("line %d: %v", n, err))
			}
		})
		if err != nil {
			wg.Done()
			return res, err
		}
	}
	wg.Wait()
	if err := sc.Err(); err != nil {
		return res, err
	}
	if e, ok := firstErr.Load().(error); ok {
		return res, exitWith(exitUsage, fmt.Errorf("%d events rejected, first: %w", res.rejected, e))
	}
	return res, nil
}
