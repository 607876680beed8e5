package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Options are the runner's run-time dependencies.
type Options struct {
	Passphrase identity.PassphraseFunc // for an encrypted key file
	Log        *slog.Logger
	// ClockOffset shifts the runner's clock (schedules, waits): for tests
	// that need a slot to come within seconds.
	ClockOffset time.Duration
}

// Errors of the start, for the CLI's exit codes.
var (
	ErrUnreachable = client.ErrUnreachable
	ErrAuthRefused = client.ErrAuth
	ErrLocked      = errors.New("state_dir locked")
)

// Catch-up bounds: a restart looks this far back for triggers (a cursor
// older than this is not used), and runs live at most this long.
const (
	catchUp    = time.Hour
	cursorSkew = 10 * time.Minute
	runMaxAge  = 7 * 24 * time.Hour
)

// publishes are the kinds the runner signs: its attestation must cover them.
func publishes() []int {
	return []int{kinds.Profile, kinds.Message, kinds.Reaction, kinds.EditMetadata, kinds.CreateGroup,
		kinds.WorkflowStatus, kinds.RunClaim, kinds.RunRecord, kinds.AgentStatus}
}

// Runner runs the workflows bound to its key.
type Runner struct {
	cfg     *Config
	opt     Options
	log     *slog.Logger
	keys    identity.Keys
	tag     nostr.Tag
	secrets map[string]string
	// redactor hides the secrets' values; allow and http are the http
	// steps' hosts and client.
	redactor redactor
	allow    allowList
	http     *http.Client
	lock     *os.File
	c        *client.Client
	me       string

	mu       sync.Mutex      // guards everything below
	defs     map[string]*def // by address
	runs     map[string]*run // by run id: open ones, and closed ones of the last hour (budgets)
	names    *chat.Names
	chans    map[string]client.Channel
	statuses map[string]status // by address: the runner's newest 30463
	lanes    map[string]*lane  // by address: concurrency
	cursor   nostr.Timestamp

	waits waiters // the steps waiting on an event (approval gates, ask_agent)
}

// New checks everything that can be checked before connecting: the key,
// its attestation, the secrets, the state directory's lock.
func New(cfg *Config, opt Options) (*Runner, error) {
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	keys, tag, _, err := client.LoadAttestedKey(cfg.Key, cfg.Attestation, "the runner", publishes(), opt.Passphrase)
	if err != nil {
		return nil, err
	}
	secrets, err := cfg.secretValues()
	if err != nil {
		return nil, err
	}
	allow, err := parseAllowList(cfg.HTTP.AllowHosts)
	if err != nil {
		return nil, err
	}
	lock, err := lockState(cfg.StateDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLocked, err)
	}
	r := &Runner{cfg: cfg, opt: opt, log: opt.Log, keys: keys, tag: tag, secrets: secrets, redactor: newRedactor(secrets), allow: allow, lock: lock, me: keys.PublicHex,
		defs: map[string]*def{}, runs: map[string]*run{}, names: chat.NewNames(), chans: map[string]client.Channel{},
		statuses: map[string]status{}, lanes: map[string]*lane{}}
	r.http = r.httpClient()
	return r, nil
}

// Npub is the runner's key.
func (r *Runner) Npub() string { return r.keys.Npub() }

// now is the runner's clock.
func (r *Runner) now() time.Time { return time.Now().Add(r.opt.ClockOffset) }

// Run connects, folds the log into the open runs, resumes them, and follows
// definitions, triggers and schedules until ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	defer r.lock.Close()
	to, err := target(r.cfg)
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	c, err := client.Connect(dctx, client.Options{URLs: to.Hubs, Keys: r.keys, AuthTag: r.tag, Pin: to.Pin, Log: r.log, SkewMargin: cursorSkew})
	cancel()
	if errors.Is(err, client.ErrAuth) {
		return fmt.Errorf("the hub at %s refused AUTH for %s: %w (is the owner a member, and the attestation not revoked?)", strings.Join(to.Hubs, ", "), r.keys.Npub(), err)
	}
	if err != nil {
		return fmt.Errorf("hub %s unreachable: %w (is it running? check hub = in the config)", strings.Join(to.Hubs, ", "), err)
	}
	defer c.Close()
	r.c = c
	if err := r.startUp(ctx); err != nil {
		return err
	}
	go r.scheduleLoop(ctx)
	go r.statusLoop(ctx)
	return r.follow(ctx)
}

// target reads the config's hub: a URL, or a client profile's hubs and pin.
func target(cfg *Config) (client.Target, error) {
	spec := client.TargetSpec{Pin: cfg.Pin, OwnKey: true}
	if strings.HasPrefix(cfg.Hub, "ws://") || strings.HasPrefix(cfg.Hub, "wss://") {
		spec.Hub = cfg.Hub
	} else {
		spec.Profile = cfg.Hub
	}
	return client.ResolveTarget(spec, os.LookupEnv)
}

// startUp reads what the log says: the profile is published, the
// definitions bound to the runner, its statuses, and every claim and record
// of the last 7 days, folded into runs; the open ones resume.
func (r *Runner) startUp(ctx context.Context) error {
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := r.profile(qctx); err != nil {
		return err
	}
	names, err := r.c.Directory(qctx)
	if err != nil {
		return err
	}
	chans, err := r.c.Channels(qctx)
	if err != nil {
		return err
	}
	defs, err := r.c.Query(qctx, nostr.Filter{Kinds: []int{kinds.WorkflowDef}, Tags: nostr.TagMap{"p": {r.me}}, Limit: 5000})
	if err != nil {
		return err
	}
	since := nostr.Timestamp(r.now().Add(-runMaxAge).Unix())
	mine, err := r.queryAll(qctx, nostr.Filter{Kinds: []int{kinds.RunClaim, kinds.RunRecord, kinds.WorkflowStatus}, Authors: []string{r.me}, Since: &since})
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.names = names
	for _, ch := range chans {
		r.chans[ch.ID] = ch
	}
	for i := range defs {
		r.putDef(defs[i])
	}
	open := r.fold(mine)
	r.cursor = r.loadCursor()
	var notes []nostr.Event // failure notes recorded, maybe not sent before a crash
	for _, rn := range r.runs {
		if rn.final == kinds.RunFailed && rn.pending != nil && rn.pending.Publish != nil && time.Since(rn.claimedAt()) < catchUp {
			notes = append(notes, *rn.pending.Publish)
		}
	}
	r.mu.Unlock()
	for _, ev := range notes {
		if err := r.republish(qctx, ev); err != nil {
			r.log.Warn("failure note", "err", err)
		}
	}
	for _, rn := range open {
		r.log.Info("resuming run", "run", rn.id, "workflow", rn.address)
		r.launch(ctx, rn)
	}
	return nil
}

// profile publishes the runner's profile (name "workflows", its
// attestation) unless it has one: an owner may have named it already.
func (r *Runner) profile(ctx context.Context) error {
	own, err := r.c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Profile}, Authors: []string{r.me}, Limit: 1})
	if err != nil || len(own) > 0 {
		return err
	}
	if _, err := r.c.Publish(ctx, client.AgentProfile("workflows", "runs the workflows bound to this key (hive workflow serve)", r.tag)); err != nil {
		return fmt.Errorf("publishing the runner's profile: %w", err)
	}
	return nil
}

// pageLimit is the hub's largest page.
const pageLimit = 5000

// queryAll reads every stored event matching f, a page at a time (newest
// first, each page until the oldest of the one before).
func (r *Runner) queryAll(ctx context.Context, f nostr.Filter) ([]nostr.Event, error) {
	seen := map[string]bool{}
	var out []nostr.Event
	f.Limit = pageLimit
	for {
		evs, err := r.c.Query(ctx, f)
		if err != nil {
			return nil, err
		}
		fresh := 0
		for _, ev := range evs {
			if !seen[ev.ID] {
				seen[ev.ID] = true
				out = append(out, ev)
				fresh++
			}
		}
		if len(evs) < pageLimit || fresh == 0 {
			return out, nil
		}
		oldest := evs[len(evs)-1].CreatedAt
		f.Until = &oldest
	}
}
