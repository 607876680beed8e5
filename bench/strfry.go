package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
)

// The strfry peer (-peer strfry): hoytech/strfry, C++ over LMDB, run from a binary the user
// built (-strfry-bin, or $STRFRY_BIN). The benchmark writes its configuration into the run's
// directory: loopback, the run's port, its database in the run's directory, NIP-42 AUTH and
// permessage-deflate off (the peer never asks for AUTH, as khatru does not; the benchmark's
// client offers no compression), no file-descriptor limit change, everything else as shipped.
// Its preload is its own `strfry import --no-verify`, like hive's, through the same setup
// (channels created over the websocket first, then the import while it is stopped).

// strfryConf is the configuration the benchmark runs strfry with.
func strfryConf(dbDir, addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`db = %q
dbParams {
    maxreaders = 256
    mapsize = 10995116277760
    noReadAhead = false
}
relay {
    bind = %q
    port = %s
    nofiles = 0
    auth {
        enabled = false
    }
    info {
        name = "strfry bench peer"
    }
    compression {
        enabled = false
        slidingWindow = false
    }
}
`, dbDir+"/", host, port), nil
}

// strfryCachePrefix names the cached preloaded databases of a corpus size.
func strfryCachePrefix(n int) string { return fmt.Sprintf("strfry-%s-%d-", corpusVersion, n) }

// newStrfry is strfry as the peer: bin is its binary, dir the run's directory for it.
func newStrfry(bin, dir, addr, cacheDir string, n int) (*server, error) {
	if bin == "" {
		return nil, fmt.Errorf("-peer strfry needs the strfry binary: -strfry-bin PATH or STRFRY_BIN")
	}
	if _, err := exec.LookPath(bin); err != nil {
		return nil, fmt.Errorf("-strfry-bin: %w", err)
	}
	s := &server{name: "strfry", dir: dir, addr: addr, logPath: filepath.Join(dir, "strfry.log")}
	db := filepath.Join(dir, "db")
	conf := filepath.Join(dir, "strfry.conf")
	text, err := strfryConf(db, addr)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return nil, err
	}
	s.prepare = func() error { return os.MkdirAll(db, 0o700) }
	s.argv = func() []string { return []string{bin, "--config=" + conf, "relay"} }
	s.restore, s.save = dbCache("strfry", bin, cacheDir, strfryCachePrefix(n), db, "data.mdb")
	s.preload = func(ctx context.Context, corpus string) error {
		in, err := os.Open(corpus)
		if err != nil {
			return err
		}
		defer in.Close()
		// the corpus was signed by this program and is not timed, as for hive's import
		cmd := exec.CommandContext(ctx, bin, "--config="+conf, "import", "--no-verify")
		cmd.Stdin = in
		if _, err := runLogged(cmd, s.logPath); err != nil {
			return fmt.Errorf("strfry import: %w; log:\n%s", err, tail(s.logPath, 20))
		}
		return nil
	}
	return s, nil
}
