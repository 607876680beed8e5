package front

import (
	"io/fs"
	"net/http"
	"testing"

	"github.com/ainb/hive/web"
)

// transferBudget is the most the web chat may cost a browser on the wire,
// gzipped (issue 21: < 300 KB).
const transferBudget = 300 << 10

// appTransfer returns the gzip bytes the hub sends for every file of the
// built app (web/dist) and how many files there are.
func appTransfer(t testing.TB) (total, files int) {
	h, err := New(Config{Relay: named("relay"), App: web.Dist()})
	if err != nil {
		t.Fatal(err)
	}
	err = fs.WalkDir(web.Dist(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rec := get(h, "/"+name, "Accept-Encoding", "gzip, deflate, br")
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Fatalf("GET /%s: %d, Content-Encoding %q", name, rec.Code, rec.Header().Get("Content-Encoding"))
		}
		total += rec.Body.Len()
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total, files
}

// The whole built app, gzipped as the hub sends it, stays under the budget.
func TestAppTransferBudget(t *testing.T) {
	total, files := appTransfer(t)
	t.Logf("web chat: %d files, %d bytes gzipped", files, total)
	if total >= transferBudget {
		t.Fatalf("the web chat is %d bytes gzipped, over the budget of %d: trim web/src or its dependencies", total, transferBudget)
	}
}

// BenchmarkAppTransfer reports the app's transfer size (gzip-bytes) and
// the cost of serving it once.
func BenchmarkAppTransfer(b *testing.B) {
	var total int
	for b.Loop() {
		total, _ = appTransfer(b)
	}
	b.ReportMetric(float64(total), "gzip-bytes")
}
