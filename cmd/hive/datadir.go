package main

import (
	"path/filepath"

	"github.com/ainb/hive/client/tlspin"
	"github.com/spf13/cobra"
)

// dataDir is a hub's data directory; its methods name the files in it.
type dataDir string

// addDataFlag defines --data on cmd.
func addDataFlag(cmd *cobra.Command, d *dataDir, help string) {
	cmd.Flags().StringVar((*string)(d), "data", ".hive", help)
}

func (d dataDir) path(name string) string { return filepath.Join(string(d), name) }
func (d dataDir) db() string              { return d.path("hive.db") }
func (d dataDir) hubKey() string          { return d.path("hub.key") }
func (d dataDir) adminKey() string        { return d.path("admin.key") }
func (d dataDir) tlsCert() string         { return d.path(tlspin.CertFile) }
func (d dataDir) tlsKey() string          { return d.path(tlspin.KeyFile) }
func (d dataDir) serveState() string      { return d.path("serve.json") }
