// Package web holds hive's web chat: its JavaScript sources (src/, built by
// `make web`) and the built assets in dist/, committed so that `go build`
// needs no Node. Dist is what the hub serves at / to a browser.
package web

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Dist returns the built web app: index.html, app.js, app.css and any
// static files, at the root of the returned file system.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a valid path; fs.Sub fails only on invalid ones
	}
	return sub
}
