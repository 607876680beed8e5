package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
)

// serveState is what a running hub writes to DATA/serve.json for
// `hive status --data DIR`.
type serveState struct {
	PID        int      `json:"pid"`
	StartedAt  int64    `json:"started_at"`
	Addr       string   `json:"addr"`
	PublicURLs []string `json:"public_urls"`
	Pin        string   `json:"pin,omitempty"`
	Metrics    string   `json:"metrics,omitempty"`
}

func (s serveState) write(d dataDir) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := d.serveState() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, d.serveState())
}

func readServeState(d dataDir) (serveState, error) {
	var s serveState
	b, err := os.ReadFile(d.serveState())
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

// newLogger is the hub's logger: text or JSON lines on w.
func newLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageErrorf("--log-format %q: use text or json", format)
}
