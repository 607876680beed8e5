package test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// metricValue sums the samples of a metric whose labels contain every given pair.
func metricValue(t *testing.T, body, name string, labels ...string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `(\{[^}]*\})? (\S+)$`)
	sum, found := 0.0, false
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		ok := true
		for _, l := range labels {
			if !strings.Contains(m[1], l) {
				ok = false
			}
		}
		if ok {
			v, _ := strconv.ParseFloat(m[2], 64)
			sum, found = sum+v, true
		}
	}
	if !found {
		t.Fatalf("no %s%v in /metrics", name, labels)
	}
	return sum
}

// /metrics scrapes with real values after a workload; JSON logs; hive status
// for the operator (--data) and for a member.
func TestMetricsStatusAndJSONLogs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "hub")
	metrics := freeAddr(t)
	p := startProc(t, data, freeAddr(t), "--tls", "self-signed", "--metrics", metrics, "--log-format", "json")
	p.URL = strings.Replace(p.URL, "ws://", "wss://", 1)
	for _, l := range strings.Split(strings.TrimSpace(p.logs()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["msg"] == nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
	}
	pin := pinRe.FindString(p.logs())
	c := newCLI(t)
	c.ok("profile", "add", "admin", "--hub", p.URL, "--pin", pin, "--key", filepath.Join(data, "admin.key"))
	c.ok("channel", "create", "ops")
	var bob struct{ Npub string }
	json.Unmarshal([]byte(c.ok("profile", "add", "bob", "--hub", p.URL, "--pin", pin, "--new-key", "--json")), &bob)
	c.ok("member", "add", bob.Npub)
	for i := 0; i < 5; i++ {
		c.ok("send", "ops", fmt.Sprintf("m%d", i))
	}
	c.run("send", "ops", "x", "--reply-to", strings.Repeat("0", 64)) // not found: no EVENT sent
	c.run("channel", "create", "again", "--id", "ops")               // refused: duplicate
	c.ok("read", "ops")

	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	if n := metricValue(t, body, "hive_events_in_total", `kind="9"`, `partition="content"`); n != 5 {
		t.Errorf("events in, kind 9: %v, want 5", n)
	}
	if n := metricValue(t, body, "hive_events_out_total", `kind="9"`); n < 5 {
		t.Errorf("events out, kind 9: %v, want >= 5", n)
	}
	if n := metricValue(t, body, "hive_rejections_total", `reason="duplicate"`); n != 1 {
		t.Errorf("duplicate rejections: %v, want 1", n)
	}
	if n := metricValue(t, body, "hive_ok_latency_seconds_count", `accepted="true"`); n < 7 {
		t.Errorf("OK latency samples: %v", n)
	}
	if n := metricValue(t, body, "hive_writer_batch_size_count"); n < 1 {
		t.Errorf("writer batches: %v", n)
	}
	metricValue(t, body, "hive_commit_seconds_sum")
	metricValue(t, body, "hive_connections")
	metricValue(t, body, "hive_subscriptions")
	metricValue(t, body, "hive_slow_consumer_drops_total")
	if gc, all := metricValue(t, body, "go_cpu_classes_gc_total_cpu_seconds_total"), metricValue(t, body, "go_cpu_classes_total_cpu_seconds_total"); gc < 0 || gc > all {
		t.Errorf("GC CPU %v s of %v s", gc, all)
	}

	var op struct {
		Running bool
		Pin     string
		Clients *int
		DBBytes int64 `json:"db_bytes"`
		Stats   struct{ Members, Channels, Events int }
	}
	if err := json.Unmarshal([]byte(c.ok("status", "--data", data, "--json")), &op); err != nil {
		t.Fatal(err)
	}
	if !op.Running || op.Pin != pin || op.Clients == nil || op.DBBytes == 0 || op.Stats.Channels != 1 || op.Stats.Members != 1 || op.Stats.Events < 6 {
		t.Fatalf("operator status: %+v", op)
	}
	var me struct {
		Hub, Pin, Npub string
		Channels       []struct {
			ID     string
			Unread int
		}
	}
	if err := json.Unmarshal([]byte(c.ok("status", "--json")), &me); err != nil {
		t.Fatal(err)
	}
	if me.Hub != p.URL || me.Pin != pin || !strings.HasPrefix(me.Npub, "npub1") || len(me.Channels) != 1 || me.Channels[0].ID != "ops" {
		t.Fatalf("member status: %+v", me)
	}
	if _, _, code := c.run("status", "--data", filepath.Join(dir, "nothing")); code != 4 {
		t.Fatalf("status of a missing data dir: exit %d", code)
	}
}
