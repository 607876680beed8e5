package client_test

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/gorilla/websocket"
)

// reqProxy forwards websocket messages between clients and a hub and
// counts the REQs the clients send (the hub round trips of a read).
type reqProxy struct {
	URL  string
	reqs atomic.Int64
}

// startReqProxy listens on 127.0.0.1; serve starts forwarding to hubURL.
func startReqProxy(t *testing.T) (*reqProxy, func(hubURL string)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &reqProxy{URL: "ws://" + ln.Addr().String()}
	return p, func(hubURL string) {
		up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer in.Close()
			out, _, err := websocket.DefaultDialer.Dial(hubURL, nil)
			if err != nil {
				return
			}
			defer out.Close()
			go func() {
				for {
					typ, msg, err := out.ReadMessage()
					if err != nil || in.WriteMessage(typ, msg) != nil {
						in.Close()
						return
					}
				}
			}()
			for {
				typ, msg, err := in.ReadMessage()
				if err != nil {
					return
				}
				if strings.HasPrefix(string(msg), `["REQ"`) {
					p.reqs.Add(1)
				}
				if out.WriteMessage(typ, msg) != nil {
					return
				}
			}
		})}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
	}
}

// LoadThread's hub round trips: one REQ for the root, its replies and the
// root's overlays; one for the replies' overlays and the deletions of the
// root's; one for the deletions of the replies' overlays (there are some);
// one for the names. Before the fold it took five (replies, root,
// overlays, their deletions, names). History's four are counted too.
func TestLoadThreadRoundTrips(t *testing.T) {
	proxy, serve := startReqProxy(t)
	th := startHub(t, nil, proxy.URL)
	serve(th.URL)
	admin := connect(t, th.URL, th.admin, client.Options{})
	ctx := ctxT(t, 10*time.Second)
	if _, err := admin.Publish(ctx, client.ChannelCreate("general", "General", client.Open)); err != nil {
		t.Fatal(err)
	}
	root, err := admin.Publish(ctx, client.Message("general", "root"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r, err := admin.Publish(ctx, client.Reply(root, "reply"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Publish(ctx, client.Reaction(r, "👍")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Publish(ctx, client.Reaction(root, "🎉")); err != nil {
		t.Fatal(err)
	}
	reader := connect(t, proxy.URL, th.admin, client.Options{})
	before := proxy.reqs.Load()
	m := reader.NewModel()
	if _, err := reader.LoadThread(ctx, m, "general", root.ID); err != nil {
		t.Fatal(err)
	}
	if rows := m.Thread(root.ID); len(rows) != 4 || len(rows[0].Reactions) != 1 || len(rows[3].Reactions) != 1 {
		t.Fatalf("thread rows %+v: want the root and 3 replies, each with its reaction", rows)
	}
	if n := proxy.reqs.Load() - before; n != 4 {
		t.Fatalf("LoadThread sent %d REQs, want 4", n)
	}
	// History: the page, its overlays by #e (only the page's answer names
	// them), their deletions, the names.
	before = proxy.reqs.Load()
	if p, err := reader.History(ctx, "general", 20, ""); err != nil || len(p.Rows) != 5 { // the root, 3 replies, the "created" system row
		t.Fatalf("History: %v, %d rows", err, len(p.Rows))
	}
	if n := proxy.reqs.Load() - before; n != 4 {
		t.Fatalf("History sent %d REQs, want 4", n)
	}
}
