package main

import "net/http"

// PairPath is where `hive serve` mounts the NIP-AB pairing endpoint (no
// AUTH, memory only; see spec/pairing.md).
const PairPath = "/pair"

// withPairing serves the pairing endpoint on PairPath and the hub everywhere else.
func withPairing(hub, pair http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(PairPath, pair)
	mux.Handle("/", hub)
	return mux
}
