package main

import (
	"context"
	"os"
	"time"
)

// diskPeak is what a workload's sampling of the servers' SQLite files found: the largest
// WAL seen, and the database file's size at that moment.
type diskPeak struct {
	WAL, DB int64
}

// sampleDisk samples, every 50 ms until the returned function is called, the size of each
// server's SQLite database and its WAL, and returns the sample whose WAL was largest (zero
// when no server has a SQLite file).
func (t *target) sampleDisk(ctx context.Context) func() diskPeak {
	var files []string
	for _, s := range t.servers {
		if s.dbFile != "" {
			files = append(files, s.dbFile)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan diskPeak, 1)
	go func() {
		var peak diskPeak
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			var now diskPeak
			for _, f := range files {
				now.WAL += fileSize(f + "-wal")
				now.DB += fileSize(f)
			}
			if now.WAL > peak.WAL {
				peak = now
			}
			select {
			case <-ctx.Done():
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() diskPeak {
		cancel()
		return <-out
	}
}

// fileSize is the file's size, 0 if it is missing.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
