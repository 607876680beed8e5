package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// corpusVersion changes whenever the generator changes shape, so stale caches are not reused.
const corpusVersion = "v3"

const (
	numChannels = 16  // channels the stored history is spread over; channel 0 is the fan-out channel
	numMentions = 200 // pubkeys that p tags mention
)

// benchKeys are deterministic so a cached corpus stays valid across runs.
var (
	adminSK = hexSHA("hive-bench-admin-" + corpusVersion)
	adminPK = mustPub(adminSK)
)

func hexSHA(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func mustPub(sk string) string {
	pk, err := nostr.GetPublicKey(sk)
	if err != nil {
		panic(err)
	}
	return pk
}

// channelIDs are 12 hex chars: never a substring of another tag value by accident.
func channelIDs() []string {
	ids := make([]string, numChannels)
	for i := range ids {
		ids[i] = hexSHA(fmt.Sprintf("hive-bench-channel-%s-%d", corpusVersion, i))[:12]
	}
	return ids
}

// mentionPubkeys are valid x-only pubkeys; the admin is one of them (people mention the admin),
// so its pubkey shows up both as a p tag and as the NIP-10 author hint inside e tags.
func mentionPubkeys() []string {
	pks := make([]string, numMentions)
	pks[0] = adminPK
	for i := 1; i < numMentions; i++ {
		pks[i] = mustPub(hexSHA(fmt.Sprintf("hive-bench-mention-%s-%d", corpusVersion, i)))
	}
	return pks
}

// corpusMeta is what the workloads need to know about the stored events without reading them.
type corpusMeta struct {
	Version    string   `json:"version"`
	N          int      `json:"n"`
	Admin      string   `json:"admin"`
	Channels   []string `json:"channels"`
	Mentions   []string `json:"mentions"`
	MinCreated int64    `json:"min_created"`
	MaxCreated int64    `json:"max_created"`
	// SampleIDs are ids of stored events (for ids lookups), Referenced ids that e tags point at.
	SampleIDs  []string `json:"sample_ids"`
	Referenced []string `json:"referenced"`
	// Roots are recent top-level events per channel: live replies start threads under them.
	Roots [][]string `json:"roots"`
	// SearchPairs are the two long-tail words of stored messages that carry
	// two (a sample): what someone looking for a message they saw would type.
	SearchPairs []string `json:"search_pairs"`
}

var words = strings.Fields(`the a to of and in is it you that for on with this be are as at have
not was but we they can will just what so if do about one all from there more out like time now
hub channel deploy merge review build test ship release branch commit patch fix bug issue relay
event query index page cache latency throughput memory socket thread reply mention agent owner
member admin open stream message history search filter kind tag signature key proof window lunch
meeting tomorrow today yesterday morning tonight great thanks please sure okay maybe soon later
done working looks good ready blocked waiting nice idea question answer think know need want`)

// searchWords are the vocabulary's content words (not its stop words), for
// the search queries.
var searchWords = words[slices.Index(words, "hub"):]

// topicWords is the long tail of the vocabulary: 20,000 made-up words
// (syllable pairs and triples), drawn Zipf-distributed (s = 1.1), as names,
// projects and terms are in a team's chat.
var topicWords = func() []string {
	cons, vows := "bdfgklmnprstvz", "aeiou"
	syl := func(i int) string { return string(cons[i%len(cons)]) + string(vows[(i/len(cons))%len(vows)]) }
	n := len(cons) * len(vows)
	out := make([]string, 0, 20000)
	for i := 0; len(out) < cap(out); i++ {
		w := syl(i%n) + syl(i/n%n)
		if i >= n*n {
			w += syl(i / (n * n) % n)
		}
		if !slices.Contains(words, w) { // "like", "note": real words stay common
			out = append(out, w)
		}
	}
	return out
}()

// genContent makes 50..400 bytes of plain words; 60% of messages also carry
// one long-tail word, 30% two (returned as pair, "" otherwise).
func (g *generator) genContent() (text, pair string) {
	r := g.r
	target := 50 + r.IntN(351)
	var ws []string
	n := 0
	for n < target {
		w := words[r.IntN(len(words))]
		ws = append(ws, w)
		n += len(w) + 1
	}
	var topics []string
	switch x := r.IntN(10); {
	case x < 3:
		topics = []string{topicWords[g.zipf.Uint64()], topicWords[g.zipf.Uint64()]}
		pair = topics[0] + " " + topics[1]
	case x < 9:
		topics = []string{topicWords[g.zipf.Uint64()]}
	}
	for _, t := range topics {
		i := r.IntN(len(ws) + 1)
		ws = append(ws[:i], append([]string{t}, ws[i:]...)...)
	}
	s := strings.Join(ws, " ")
	if len(s) > target+24 {
		s = strings.TrimRight(s[:target+24], " ")
	}
	return s, pair
}

// generator produces unsigned kind 9 events with realistic tags. It remembers recent events per
// channel so NIP-10 tags point at earlier events of the same channel, with consistent threads:
// a reply to a top-level event carries only its root tag; a reply to a reply carries the
// thread's root and the parent as reply.
type generator struct {
	r        *rand.Rand
	channels []string
	mentions []string
	recent   [][]recentEv // per channel, ring of recent events
	refs     []string     // referenced ids (reservoir)
	refSeen  int
	zipf     *rand.Zipf
	pairs    []string // long-tail word pairs of messages (reservoir)
	pairSeen int
	frozen   bool // do not remember new events: replies only point at the seeded ones
}

type recentEv struct {
	id   string
	root string // "" for a top-level event
}

func newGenerator(seed uint64) *generator {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &generator{
		r:        r,
		channels: channelIDs(),
		mentions: mentionPubkeys(),
		recent:   make([][]recentEv, numChannels),
		zipf:     rand.NewZipf(r, 1.1, 1, uint64(len(topicWords)-1)),
	}
}

const maxRefs = 50000

func (g *generator) noteRef(id string) {
	g.refSeen++
	if len(g.refs) < maxRefs {
		g.refs = append(g.refs, id)
	} else if j := g.r.IntN(g.refSeen); j < maxRefs {
		g.refs[j] = id
	}
}

func pushRing[T any](ring []T, v T, max int) []T {
	if len(ring) < max {
		return append(ring, v)
	}
	copy(ring, ring[1:])
	ring[len(ring)-1] = v
	return ring
}

// next builds one event in channel ch (or a random one when ch < 0) with the given created_at.
// The id is computed here (it does not depend on the signature), so later events can refer to it.
func (g *generator) next(ch int, createdAt int64) *nostr.Event {
	r := g.r
	if ch < 0 {
		ch = r.IntN(len(g.channels))
	}
	tags := nostr.Tags{{"h", g.channels[ch]}}
	root := ""
	// ~30% are thread replies (NIP-10 markers, with the author hint).
	if r.IntN(100) < 30 && len(g.recent[ch]) > 0 {
		parent := g.recent[ch][r.IntN(len(g.recent[ch]))]
		if parent.root == "" {
			root = parent.id
			tags = append(tags, nostr.Tag{"e", parent.id, "", "root", adminPK})
			g.noteRef(parent.id)
		} else {
			root = parent.root
			tags = append(tags, nostr.Tag{"e", parent.root, "", "root", adminPK}, nostr.Tag{"e", parent.id, "", "reply", adminPK})
			g.noteRef(parent.root)
			g.noteRef(parent.id)
		}
	}
	// ~20% mention 1..3 pubkeys.
	if r.IntN(100) < 20 {
		n := 1 + r.IntN(3)
		for range n {
			tags = append(tags, nostr.Tag{"p", g.mentions[r.IntN(len(g.mentions))]})
		}
	}
	content, pair := g.genContent()
	if pair != "" && !g.frozen {
		g.pairSeen++
		if len(g.pairs) < 2000 {
			g.pairs = append(g.pairs, pair)
		} else if j := r.IntN(g.pairSeen); j < 2000 {
			g.pairs[j] = pair
		}
	}
	ev := &nostr.Event{
		PubKey:    adminPK,
		CreatedAt: nostr.Timestamp(createdAt),
		Kind:      9,
		Tags:      tags,
		Content:   content,
	}
	ev.ID = ev.GetID()
	if !g.frozen {
		g.recent[ch] = pushRing(g.recent[ch], recentEv{ev.ID, root}, 256)
	}
	return ev
}

// roots lists the top-level events among the recent ones of each channel.
func (g *generator) roots() [][]string {
	out := make([][]string, len(g.recent))
	for c, ring := range g.recent {
		for _, e := range ring {
			if e.root == "" {
				out[c] = append(out[c], e.id)
			}
		}
	}
	return out
}

// signAll signs events in parallel on all cores with the admin key.
func signAll(evs []*nostr.Event) error {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(evs); i += workers {
				id := evs[i].ID
				if err := evs[i].Sign(adminSK); err != nil {
					errs[w] = err
					return
				}
				if evs[i].ID != id {
					errs[w] = fmt.Errorf("id changed while signing")
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// corpusPaths returns the jsonl and meta paths of the cached corpus of n events.
func corpusPaths(dataDir string, n int) (string, string) {
	base := filepath.Join(dataDir, fmt.Sprintf("corpus-%s-%d", corpusVersion, n))
	return base + ".jsonl", base + ".meta.json"
}

// loadOrBuildCorpus returns the cached corpus of n stored events, building and signing it first
// when it is not on disk. History spans the 30 days before generation.
func loadOrBuildCorpus(dataDir string, n int) (string, *corpusMeta, error) {
	jsonl, metaPath := corpusPaths(dataDir, n)
	if b, err := os.ReadFile(metaPath); err == nil {
		var m corpusMeta
		if json.Unmarshal(b, &m) == nil && m.N == n && m.Version == corpusVersion {
			if st, err := os.Stat(jsonl); err == nil && st.Size() > 0 {
				logf("corpus: using cached %d events (%s)", n, filepath.Base(jsonl))
				return jsonl, &m, nil
			}
		}
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", nil, err
	}
	logf("corpus: generating and signing %d events (cached for next runs)", n)
	start := time.Now()
	g := newGenerator(uint64(n))
	end := time.Now().Unix()
	span := int64(30 * 24 * 3600)
	first := end - span
	m := &corpusMeta{Version: corpusVersion, N: n, Admin: adminPK, Channels: g.channels, Mentions: g.mentions, MinCreated: first}

	tmp := jsonl + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", nil, err
	}
	defer os.Remove(tmp)
	w := bufio.NewWriterSize(f, 1<<20)
	const chunk = 20000
	var sample []string
	seen := 0
	for done := 0; done < n; done += chunk {
		k := min(chunk, n-done)
		evs := make([]*nostr.Event, k)
		for i := range evs {
			idx := done + i
			ts := first + int64(float64(idx)*float64(span)/float64(n))
			evs[i] = g.next(-1, ts)
		}
		if err := signAll(evs); err != nil {
			f.Close()
			return "", nil, err
		}
		for _, ev := range evs {
			b, err := ev.MarshalJSON()
			if err != nil {
				f.Close()
				return "", nil, err
			}
			w.Write(b)
			w.WriteByte('\n')
			seen++
			if len(sample) < maxRefs {
				sample = append(sample, ev.ID)
			} else if j := g.r.IntN(seen); j < maxRefs {
				sample[j] = ev.ID
			}
			m.MaxCreated = int64(ev.CreatedAt)
		}
		if (done/chunk)%10 == 9 {
			logf("corpus: %d/%d signed", done+k, n)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", nil, err
	}
	if err := f.Close(); err != nil {
		return "", nil, err
	}
	m.SampleIDs = sample
	m.SearchPairs = g.pairs
	m.Referenced = g.refs
	m.Roots = g.roots()
	mb, _ := json.Marshal(m)
	if err := os.WriteFile(metaPath, mb, 0o644); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, jsonl); err != nil {
		return "", nil, err
	}
	logf("corpus: %d events signed in %s", n, time.Since(start).Round(time.Millisecond))
	return jsonl, m, nil
}

// readCorpus streams the events of a jsonl corpus to fn.
func readCorpus(path string, fn func(ev *nostr.Event) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 1 {
			var ev nostr.Event
			if err := ev.UnmarshalJSON(line); err != nil {
				return fmt.Errorf("corpus: %w", err)
			}
			if err := fn(&ev); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// liveEvents builds and signs fresh events (created_at now) for the write workloads: they are
// not cached, so a server that refuses stale timestamps still accepts them. Their e tags point
// only at stored events: with several connections publishing at once, a reply to another live
// event could reach the server before its parent does.
func liveEvents(m *corpusMeta, n int, ch int, seed uint64) ([]*nostr.Event, error) {
	g := newGenerator(seed)
	// seed the reply rings with stored top-level events of each channel, so replies point at
	// real stored events of their own channel
	for c := range g.recent {
		if c < len(m.Roots) {
			for _, id := range m.Roots[c] {
				g.recent[c] = append(g.recent[c], recentEv{id: id})
			}
		}
	}
	g.frozen = true
	now := time.Now().Unix()
	evs := make([]*nostr.Event, n)
	for i := range evs {
		evs[i] = g.next(ch, now)
	}
	if err := signAll(evs); err != nil {
		return nil, err
	}
	return evs, nil
}
