package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// `bench workflows` measures hive's workflow runner (issue 34, "Performance") against the real
// binaries on loopback: a hub (`hive serve`), a runner (`hive workflow serve`) with N enabled
// workflows whose message triggers have `when:` conditions, set up through the CLI as a person
// would. It prints one Markdown table:
//   - trigger stored → run card stored: a message matching one workflow is published; its OK
//     is "stored"; the card's arrival on a live subscription (the hub broadcasts what it stored)
//     ends the sample. One message at a time, rotating over the workflows (each stays under
//     its 30-runs-an-hour budget).
//   - runner CPU per message: the runner's user+system CPU over M messages that every
//     workflow's `when:` looks at and none matches, divided by M; the end is signalled by one
//     matching message after them (the runner handles events in order) whose card arrives.
//   - runner RSS (VmRSS) after all of it, with the N workflows loaded.
//   - schedule: a `* * * * *` workflow; the runner runs with its hidden --clock-offset so that
//     a slot comes three seconds after it starts; the card's arrival minus the slot's instant
//     (in real time) is how late it fired.

type wfBenchConfig struct {
	workflows, triggers, messages int
	hiveSrc, hiveBin              string
	keep                          bool
}

func runWorkflowsBench(args []string) error {
	var c wfBenchConfig
	fs := flag.NewFlagSet("workflows", flag.ExitOnError)
	fs.IntVar(&c.workflows, "workflows", 100, "enabled workflows with when: message triggers on the runner")
	fs.IntVar(&c.triggers, "triggers", 200, "trigger → card samples (one at a time)")
	fs.IntVar(&c.messages, "messages", 2000, "non-matching messages for the runner's CPU per message")
	fs.StringVar(&c.hiveSrc, "hive-src", "..", "hive's main module (built with go build ./cmd/hive)")
	fs.StringVar(&c.hiveBin, "hive-bin", "", "use this hive binary instead of building one")
	fs.BoolVar(&c.keep, "keep", false, "keep the data directory")
	fs.Parse(args)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "hive-bench-wf-")
	if err != nil {
		return err
	}
	if !c.keep {
		defer os.RemoveAll(dir)
	} else {
		logf("keeping %s", dir)
	}
	bin := c.hiveBin
	if bin == "" {
		bin = filepath.Join(dir, "hive")
		logf("building hive")
		if err := buildHive(ctx, c.hiveSrc, bin); err != nil {
			return err
		}
	}
	w := &wfBench{c: c, bin: bin, dir: dir}
	defer w.stop()
	if err := w.setUp(ctx); err != nil {
		return err
	}
	return w.measure(ctx)
}

// wfBench is one run: the hub, the runner and the admin's connection.
type wfBench struct {
	c        wfBenchConfig
	bin, dir string
	url      string
	procs    []*exec.Cmd
	runner   *exec.Cmd
	runnerPK string
	offset   time.Duration
	conn     *client

	mu    sync.Mutex
	oks   map[string]time.Time // message id → its OK
	cards chan wfCard
}

// wfCard is a card as it arrived: the message it answers (its root), its created_at.
type wfCard struct {
	root string
	at   int64
	t    time.Time
	text string
}

func (w *wfBench) cli(args ...string) (string, error) {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "HIVE_HOME="+filepath.Join(w.dir, "home"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("hive %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// start runs a hive process until its stderr has a line with ready.
func (w *wfBench) start(ready string, args ...string) (*exec.Cmd, error) {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "HIVE_HOME="+filepath.Join(w.dir, "home"))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.procs = append(w.procs, cmd)
	found := make(chan struct{})
	logFile, _ := os.Create(filepath.Join(w.dir, args[0]+".log"))
	go func() {
		defer logFile.Close()
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			fmt.Fprintln(logFile, sc.Text())
			if !once && strings.Contains(sc.Text(), ready) {
				once = true
				close(found)
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case <-found:
		return cmd, nil
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("hive %s: no %q within 30s", args[0], ready)
	}
}

func (w *wfBench) stop() {
	if w.conn != nil {
		w.conn.close()
	}
	for i := len(w.procs) - 1; i >= 0; i-- {
		w.procs[i].Process.Kill()
		w.procs[i].Wait()
	}
}

// setUp starts the hub, sets up the admin's profile, channel ops, the runner's key and
// attestation, applies the workflows and starts the runner.
func (w *wfBench) setUp(ctx context.Context) error {
	addr, err := freePort()
	if err != nil {
		return err
	}
	w.url = "ws://" + addr
	data := filepath.Join(w.dir, "hub")
	if _, err := w.start("hive hub serving", "serve", "--addr", addr, "--data", data, "--admin", adminPK, "--public-url", w.url); err != nil {
		return err
	}
	key := filepath.Join(w.dir, "admin.key")
	imp := exec.Command(w.bin, "key", "import", "--out", key)
	imp.Stdin = strings.NewReader(adminSK + "\n")
	if out, err := imp.CombinedOutput(); err != nil {
		return fmt.Errorf("key import: %v %s", err, out)
	}
	steps := [][]string{{"profile", "add", "admin", "--hub", w.url, "--key", key}, {"channel", "create", "ops"}}
	for _, s := range steps {
		if _, err := w.cli(s...); err != nil {
			return err
		}
	}
	out, err := w.cli("key", "new", "--out", "runner.key", "--json")
	if err != nil {
		return err
	}
	var k struct{ Npub, Pubkey string }
	json.Unmarshal([]byte(out), &k)
	w.runnerPK = k.Pubkey
	tag, err := w.cli("agent", "attest", "--key", key, "--agent", k.Npub, "--expires", "2h", "--not-before", "none")
	if err != nil {
		return err
	}
	os.WriteFile(filepath.Join(w.dir, "runner.tag"), []byte(tag), 0o600)
	if _, err := w.cli("channel", "add", "ops", k.Npub); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(w.dir, "runner.toml"), []byte(fmt.Sprintf("hub = %q\nkey = \"runner.key\"\nattestation = \"runner.tag\"\nstate_dir = \"state\"\n", w.url)), 0o600)
	logf("applying %d workflows", w.c.workflows+1)
	apply := func(name, src string) error {
		f := filepath.Join(w.dir, name+".yaml")
		os.WriteFile(f, []byte(src), 0o600)
		_, err := w.cli("workflow", "apply", f, "--runner", k.Npub)
		return err
	}
	for i := 0; i < w.c.workflows; i++ {
		name := fmt.Sprintf("w%03d", i)
		if err := apply(name, fmt.Sprintf("name: %s\nchannel: ops\non:\n  message:\n    when: 'trigger.text startsWith \"!%s \" && len(trigger.text) < 200'\nsteps:\n  - id: say\n    post: ok\n", name, name)); err != nil {
			return err
		}
	}
	// the runner's clock is set so that a minute slot comes 3 s after it starts, and no slot
	// falls between the schedule's definition and the runner's clock (that slot would be a
	// catch-up, not a fire): the next boundary must be 5 s away or more when it is applied
	now := time.Now()
	slot := now.Truncate(time.Minute).Add(time.Minute)
	if slot.Sub(now) < 5*time.Second {
		time.Sleep(slot.Sub(now) + 100*time.Millisecond)
		slot = slot.Add(time.Minute)
	}
	if err := apply("tick", "name: tick\nchannel: ops\non:\n  schedule:\n    - cron: \"* * * * *\"\nsteps:\n  - id: say\n    post: tick\n"); err != nil {
		return err
	}
	now = time.Now()
	w.offset = slot.Sub(now.Add(3 * time.Second)).Round(time.Millisecond)
	w.oks, w.cards = map[string]time.Time{}, make(chan wfCard, 1024)
	w.conn, err = dial(ctx, w.url, &authMode{}, handlers{ok: w.onOK, event: w.onEvent, closed: func(sub, reason string, _ time.Time) { logf("subscription %s closed: %s", sub, reason) }})
	if err != nil {
		return err
	}
	since := nostr.Now()
	if err := w.conn.send(reqMsg("cards", nostr.Filter{Kinds: []int{9}, Authors: []string{w.runnerPK}, Tags: nostr.TagMap{"h": {"ops"}}, Since: &since})); err != nil {
		return err
	}
	logf("starting the runner (clock offset %v)", w.offset)
	w.runner, err = w.start("runner following", "workflow", "serve", "--config", "runner.toml", "--clock-offset", w.offset.String())
	return err
}

func (w *wfBench) onOK(id string, ok bool, reason string, t time.Time) {
	w.mu.Lock()
	w.oks[id] = t
	w.mu.Unlock()
	if !ok {
		logf("refused: %s", reason)
	}
}

func (w *wfBench) onEvent(_ string, raw []byte, t time.Time) {
	var ev nostr.Event
	if json.Unmarshal(raw, &ev) != nil || !strings.HasPrefix(ev.Content, "▶ ") {
		return
	}
	c := wfCard{at: int64(ev.CreatedAt), t: t, text: ev.Content}
	for _, tg := range ev.Tags {
		if len(tg) >= 4 && tg[0] == "e" && tg[3] == "root" {
			c.root = tg[1]
		}
	}
	w.cards <- c
}

// post publishes a message of ops as the admin; it returns its id.
func (w *wfBench) post(text string) (string, error) {
	ev := nostr.Event{Kind: 9, CreatedAt: nostr.Now(), Content: text, Tags: nostr.Tags{{"h", "ops"}}}
	if err := ev.Sign(adminSK); err != nil {
		return "", err
	}
	return ev.ID, w.conn.send(eventMsg(&ev))
}

// card waits for the card of message id (or any card, id "").
func (w *wfBench) card(id string, within time.Duration) (wfCard, error) {
	deadline := time.After(within)
	for {
		select {
		case c := <-w.cards:
			if id == "" || c.root == id {
				return c, nil
			}
		case <-deadline:
			return wfCard{}, fmt.Errorf("no card for %s within %v", id, within)
		}
	}
}

func (w *wfBench) measure(ctx context.Context) error {
	// the schedule slot first: it comes 3 s after the runner started
	sc, err := w.card("", 30*time.Second)
	if err != nil {
		return fmt.Errorf("the schedule slot: %w", err)
	}
	late := sc.t.Sub(time.Unix(sc.at, 0).Add(-w.offset))
	logf("schedule: %q (slot %s, card at %s real, offset %v) fired %v after its slot", sc.text, time.Unix(sc.at, 0).UTC().Format(time.RFC3339), sc.t.UTC().Format("15:04:05.000"), w.offset, late)

	var lat latencies
	for i := 0; i < w.c.triggers; i++ {
		id, err := w.post(fmt.Sprintf("!w%03d %d", i%w.c.workflows, i))
		if err != nil {
			return err
		}
		c, err := w.card(id, 10*time.Second)
		if err != nil {
			return err
		}
		w.mu.Lock()
		ok := w.oks[id]
		w.mu.Unlock()
		lat = append(lat, c.t.Sub(ok))
	}
	logf("trigger → card: p50 %v p99 %v", lat.pct(50), lat.pct(99))

	pid := w.runner.Process.Pid
	before := procCPU(pid)
	start := time.Now()
	for i := 0; i < w.c.messages; i++ {
		if _, err := w.post(fmt.Sprintf("an ordinary message %d, which no workflow's when: takes", i)); err != nil {
			return err
		}
		if i%200 == 199 { // let the OKs catch up: a bounded pipeline
			w.waitOKs(i+1+w.c.triggers, 20*time.Second)
		}
	}
	end, err := w.post(fmt.Sprintf("!w%03d end", w.c.triggers%w.c.workflows))
	if err != nil {
		return err
	}
	if _, err := w.card(end, 60*time.Second); err != nil {
		return err
	}
	cpu := procCPU(pid) - before
	rss, hwm := procMem(pid)
	perMsg := cpu / time.Duration(w.c.messages+1)
	logf("%d messages in %v: runner CPU %v (%v a message), RSS %d KiB (peak %d)", w.c.messages, time.Since(start).Round(time.Millisecond), cpu, perMsg, rss, hwm)

	fmt.Printf("| workflow runner (%d workflows, `when:` message triggers) | hive | target |\n|---|---|---|\n", w.c.workflows)
	fmt.Printf("| trigger stored → run card stored, p50 (%d runs) | %.1f ms | < 20 ms |\n", len(lat), ms(lat.pct(50)))
	fmt.Printf("| trigger stored → run card stored, p99 | %.1f ms | < 100 ms |\n", ms(lat.pct(99)))
	fmt.Printf("| runner CPU per message (%d messages none matches) | %.3f ms | < 1 ms |\n", w.c.messages, ms(perMsg))
	fmt.Printf("| runner RSS (VmRSS; peak) | %.1f MB (%.1f) | < 64 MB |\n", float64(rss)/1024, float64(hwm)/1024)
	fmt.Printf("| schedule slot → card stored | %.0f ms | < 1 s |\n", ms(late))
	return nil
}

// waitOKs waits until n messages have their OK.
func (w *wfBench) waitOKs(n int, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		got := len(w.oks)
		w.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
