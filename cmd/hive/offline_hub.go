package main

import (
	"log/slog"
	"os"

	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store"
)

// openOfflineHub opens the hub whose keys are in dir (adminFlag as given to
// hive serve) over openStore, for a command that works on a stopped hub's
// log (import, migrate); warnings go to stderr. It returns the hub's key too.
func openOfflineHub(dir, adminFlag string, openStore store.Opener) (*hub.Hub, identity.Keys, error) {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	hubKey, admin, err := hubKeys(dir, adminFlag, log)
	if err != nil {
		return nil, hubKey, err
	}
	h, err := hub.Open(hub.Config{OpenStore: openStore, Admin: admin, Keys: hubKey, Log: log})
	return h, hubKey, err
}
