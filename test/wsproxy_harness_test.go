package test

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ainb/hive/relay"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// wsProxy stands between clients and the hub and relays their websocket
// messages both ways, losing what a faulty hub or middlebox would on
// command: REQs it swallows (never passed on, never answered), EVENTs it
// swallows likewise, an open REQ it closes (CLOSE to the hub, CLOSED to
// the client), or every connection at once.
type wsProxy struct {
	t      testing.TB
	ln     net.Listener
	URL    string
	target string

	mu      sync.Mutex
	swallow func(fs []nostr.Filter) bool // REQs not passed on
	drop    func(ev *nostr.Event) bool   // EVENTs not passed on
	conns   map[*proxyConn]bool
}

// proxyConn is one client's connection and its own to the hub.
type proxyConn struct {
	client, hub *websocket.Conn
	cmu, hmu    sync.Mutex                // writes to each side
	open        map[string][]nostr.Filter // REQs passed on and not closed (under wsProxy.mu)
}

// listenProxy reserves the proxy's address; serve starts it in front of
// the hub at target. public adds its URL to the hub's (for NIP-42).
func listenProxy(t testing.TB) *wsProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &wsProxy{t: t, ln: ln, URL: "ws://" + ln.Addr().String(), conns: map[*proxyConn]bool{}}
}

// public lets the hub accept AUTH naming the proxy's URL.
func (p *wsProxy) public(c *relay.Config) { c.PublicURLs = append(c.PublicURLs, p.URL) }

// serve relays to the hub at target until the test ends.
func (p *wsProxy) serve(target string) {
	p.target = target
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cl, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		hb, _, err := websocket.DefaultDialer.Dial(p.target, nil)
		if err != nil {
			cl.Close()
			return
		}
		pc := &proxyConn{client: cl, hub: hb, open: map[string][]nostr.Filter{}}
		p.mu.Lock()
		p.conns[pc] = true
		p.mu.Unlock()
		go p.relay(pc, hb, cl, &pc.cmu, nil)
		p.relay(pc, cl, hb, &pc.hmu, p.fromClient)
	})}
	go srv.Serve(p.ln)
	p.t.Cleanup(func() { srv.Close(); p.kick() })
}

// relay copies messages from one side to the other until either ends;
// keep (if set) decides whether a message goes on.
func (p *wsProxy) relay(pc *proxyConn, from, to *websocket.Conn, wmu *sync.Mutex, keep func(*proxyConn, []byte) bool) {
	defer func() {
		pc.client.Close()
		pc.hub.Close()
		p.mu.Lock()
		delete(p.conns, pc)
		p.mu.Unlock()
	}()
	for {
		typ, b, err := from.ReadMessage()
		if err != nil {
			return
		}
		if keep != nil && !keep(pc, b) {
			continue
		}
		wmu.Lock()
		err = to.WriteMessage(typ, b)
		wmu.Unlock()
		if err != nil {
			return
		}
	}
}

// fromClient tracks the client's REQs and CLOSEs, and swallows the REQs
// it is told to.
func (p *wsProxy) fromClient(pc *proxyConn, b []byte) bool {
	var msg []json.RawMessage
	if json.Unmarshal(b, &msg) != nil || len(msg) < 2 {
		return true
	}
	var label, id string
	json.Unmarshal(msg[0], &label)
	json.Unmarshal(msg[1], &id)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch label {
	case "REQ":
		var fs []nostr.Filter
		for _, raw := range msg[2:] {
			var f nostr.Filter
			json.Unmarshal(raw, &f)
			fs = append(fs, f)
		}
		if p.swallow != nil && p.swallow(fs) {
			return false
		}
		pc.open[id] = fs
	case "CLOSE":
		delete(pc.open, id)
	case "EVENT":
		var ev nostr.Event
		return p.drop == nil || json.Unmarshal(msg[1], &ev) != nil || !p.drop(&ev)
	}
	return true
}

// dropEvents makes the proxy drop every EVENT a client sends that match
// accepts (nil: none): the hub never sees it, the client never gets its OK.
func (p *wsProxy) dropEvents(match func(ev *nostr.Event) bool) {
	p.mu.Lock()
	p.drop = match
	p.mu.Unlock()
}

// swallowReqs makes the proxy drop every REQ match accepts (nil: none).
func (p *wsProxy) swallowReqs(match func(fs []nostr.Filter) bool) {
	p.mu.Lock()
	p.swallow = match
	p.mu.Unlock()
}

// closeReqs closes every open REQ match accepts, as a hub would: CLOSE
// upstream, CLOSED with reason to the client. It returns how many.
func (p *wsProxy) closeReqs(match func(fs []nostr.Filter) bool, reason string) int {
	type target struct {
		pc *proxyConn
		id string
	}
	var ts []target
	p.mu.Lock()
	for pc := range p.conns {
		for id, fs := range pc.open {
			if match(fs) {
				ts = append(ts, target{pc, id})
				delete(pc.open, id)
			}
		}
	}
	p.mu.Unlock()
	for _, tg := range ts {
		close, _ := json.Marshal([]string{"CLOSE", tg.id})
		closed, _ := json.Marshal([]string{"CLOSED", tg.id, reason})
		tg.pc.hmu.Lock()
		tg.pc.hub.WriteMessage(websocket.TextMessage, close)
		tg.pc.hmu.Unlock()
		tg.pc.cmu.Lock()
		tg.pc.client.WriteMessage(websocket.TextMessage, closed)
		tg.pc.cmu.Unlock()
	}
	return len(ts)
}

// kick closes every connection through the proxy.
func (p *wsProxy) kick() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for pc := range p.conns {
		pc.client.Close()
		pc.hub.Close()
	}
	return len(p.conns)
}

// feedReq reports whether a REQ is a bridge's live subscription to its
// channels' messages: a filter of kind 9 by #h with no limit (a query
// of the context's, or a catch-up page, has one; a thread's has #e).
func feedReq(fs []nostr.Filter) bool {
	for _, f := range fs {
		if slices.Contains(f.Kinds, 9) && len(f.Tags["h"]) > 0 && f.Tags["e"] == nil && f.Limit == 0 && !f.LimitZero {
			return true
		}
	}
	return false
}

// proxiedEnv is a bridge env with the scripted agent whose bridge reaches
// the hub through a proxy.
func proxiedEnv(t *testing.T) (*bridgeEnv, *wsProxy) {
	p := listenProxy(t)
	e := newBridgeEnv(t, p.public)
	p.serve(e.h.URL)
	e.scripted(t)
	cfg, _ := os.ReadFile(e.configPath)
	os.WriteFile(e.configPath, []byte(strings.Replace(string(cfg), e.h.URL, p.URL, 1)), 0o600)
	return e, p
}
