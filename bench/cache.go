package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The preloaded databases are cached in DATA/cache so reruns skip the (untimed) import:
// the peer's by corpus, hive's by corpus and the sha256 of the hive binary, since any change to
// hive may change what its import writes. Only the newest hive copy per corpus size is kept.

func fileSHA(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	// on disk before the server starts: the copy's writeback would otherwise run during the
	// workloads and move their write_bytes (109 KB an event in ingest after a restored cache,
	// 29 KB after an import, for one binary)
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyDir copies the regular files of src (not recursive) into dst.
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// saveDirCache stores src as cache entry dst atomically, removing the other entries that start
// with prunePrefix.
func saveDirCache(src, dst, prunePrefix string) error {
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if prunePrefix != "" {
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prunePrefix) && filepath.Join(parent, e.Name()) != dst {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	tmp := dst + ".tmp"
	os.RemoveAll(tmp)
	if err := copyDir(src, tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	os.RemoveAll(dst)
	return os.Rename(tmp, dst)
}

func hiveCachePrefix(n int) string { return fmt.Sprintf("hive-%s-%d-", corpusVersion, n) }

func peerCacheName(n int) string { return fmt.Sprintf("peer-%s-%d", corpusVersion, n) }

// dbCache is a server's preloaded database cached as an entry of cacheDir named by prefix and
// the sha256 of its binary (bin): restore copies it into dir when the entry holds marker (the
// database's file), save replaces the entry with dir and prunes the other entries of prefix.
// Both are nil without a cache directory or when bin cannot be read.
func dbCache(name, bin, cacheDir, prefix, dir, marker string) (restore func() bool, save func() error) {
	if cacheDir == "" {
		return nil, nil
	}
	sum, err := fileSHA(bin)
	if err != nil {
		return nil, nil
	}
	entry := filepath.Join(cacheDir, prefix+sum[:16])
	restore = func() bool {
		if !exists(filepath.Join(entry, marker)) {
			return false
		}
		if err := copyDir(entry, dir); err != nil {
			logf("%s: cached database unusable: %v", name, err)
			os.RemoveAll(dir)
			return false
		}
		return true
	}
	save = func() error { return saveDirCache(dir, entry, prefix) }
	return restore, save
}
