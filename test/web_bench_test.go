package test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/chromedp/chromedp"
	"github.com/nbd-wtf/go-nostr"
)

// The web chat's speed figures (spec/web.md, "Performance"), in a real
// Chromium against the real hub over TLS:
//
//	go test -tags libsecp256k1,sqlite_fts5 -run XXX -bench BenchmarkWeb -benchtime 5x ./test/

// seed publishes n messages into channel as c, dated one a second up to
// now, from 8 writers at once; it returns the newest one's id.
func seed(t testing.TB, c *client.Client, channel string, n int) string {
	t.Helper()
	start := time.Now().Add(-time.Duration(n) * time.Second)
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 8 {
				ev := client.Message(channel, fmt.Sprintf("message %d of the seed", i))
				ev.CreatedAt = nostr.Timestamp(start.Add(time.Duration(i) * time.Second).Unix())
				out, err := c.Publish(ctxT(t), ev)
				if err != nil {
					errs <- err
					return
				}
				ids[i] = out.ID
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatalf("seeding %s: %v", channel, err)
	}
	return ids[n-1]
}

// BenchmarkWebFirstPaint: a fresh page load of the app (signed in), then a
// click on a channel of 5,000 messages until its newest message is on the
// screen; ms/first-paint is the time from the click to the frame that shows
// it. Budget: < 1 s.
func BenchmarkWebFirstPaint(b *testing.B) {
	w := startWebTeam(b)
	c := w.memberClient(b, "bob")
	c.Publish(ctxT(b), client.Message("lobby", "hello"))
	w.cli.ok("channel", "create", "big", "--profile", "owner")
	w.cli.ok("channel", "join", "big", "--profile", "bob")
	newest := seed(b, c, "big", 5000)
	w.importKey(b, filepath.Join(w.h.Data, "admin.key"))
	var total time.Duration
	for b.Loop() {
		w.b.open(w.h.URL)
		w.b.waitState("connected")
		w.openChannel(b, "lobby")
		w.b.waitVisible(channelItem("big"))
		ms := awaitAs[float64](w.b, fmt.Sprintf(`new Promise(done => {
			const t0 = performance.now();
			document.querySelector(%q).click();
			const look = () => document.querySelector(%q) ? requestAnimationFrame(() => done(performance.now() - t0)) : requestAnimationFrame(look);
			look();
		})`, channelItem("big"), tid("timeline")+" "+messageSel(newest)))
		total += time.Duration(ms * float64(time.Millisecond))
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-paint")
}

// BenchmarkWebLiveMessage: another member publishes a message while the
// channel is open; ms/live is from just before the publish to the frame
// that shows it (the page's clock and the test's are the machine's).
// Budget: < 100 ms.
func BenchmarkWebLiveMessage(b *testing.B) {
	w := startWebTeam(b)
	c := w.memberClient(b, "bob")
	w.importKey(b, filepath.Join(w.h.Data, "admin.key"))
	w.openChannel(b, "room")
	w.b.do("watch the timeline", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		window.__seen = {};
		const tl = document.querySelector(%q);
		new MutationObserver(() => {
			for (const m of tl.querySelectorAll(%q)) {
				const k = m.textContent.match(/live (\d+) now/);
				if (k && !(k[1] in window.__seen)) {
					window.__seen[k[1]] = undefined;
					requestAnimationFrame(() => { window.__seen[k[1]] = Date.now(); });
				}
			}
		}).observe(tl, {childList: true, subtree: true, characterData: true});
	})()`, tid("timeline"), tid("message"))))
	var total time.Duration
	i := 0
	for b.Loop() {
		i++
		sent := time.Now()
		if _, err := c.Publish(ctxT(b), client.Message("room", fmt.Sprintf("live %d now", i))); err != nil {
			b.Fatal(err)
		}
		w.b.waitUntil(fmt.Sprintf("live message %d shown", i), fmt.Sprintf(`window.__seen[%q] !== undefined`, fmt.Sprint(i)))
		at := evalAs[float64](w.b, fmt.Sprintf(`window.__seen[%q]`, fmt.Sprint(i)))
		total += time.UnixMilli(int64(at)).Sub(sent)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/live")
}
