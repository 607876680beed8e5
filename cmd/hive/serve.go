package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/internal/buildinfo"
	"github.com/ainb/hive/nip86"
	"github.com/ainb/hive/pairing/endpoint"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/webhook"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	addr       string
	data       string
	publicURLs []string
	admin      string
	pprof      string
	verbose    bool
	window     time.Duration
	poll       time.Duration // --store-poll (hidden; tests)
	limits     relay.Config  // the flags that set relay limits
	tls        string        // "" or "self-signed"
	tlsCert    string
	tlsKey     string
	plaintext  bool   // --insecure-plaintext
	store      string // --store: "" (SQLite in data) or a postgres:// URL
	metrics    string
	logFormat  string
	web        bool // --web: serve the web chat at / to browsers
	invites    string
}

func newServeCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the hub: a closed Nostr relay over an embedded SQLite event log (or a shared PostgreSQL one: --store)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, f)
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", "127.0.0.1:7447", "address to listen on")
	cmd.Flags().StringVar(&f.data, "data", ".hive", "data directory (holds hive.db and the hub's keys)")
	cmd.Flags().StringArrayVar(&f.publicURLs, "public-url", nil, "ws:// or wss:// URL clients use to reach the hub (repeatable; default ws://ADDR)")
	cmd.Flags().StringVar(&f.admin, "admin", "", "admin pubkey (npub or hex); default: create DATA/admin.key on first start")
	cmd.Flags().StringVar(&f.pprof, "pprof", "", "serve net/http/pprof on this address (e.g. 127.0.0.1:6060)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "debug logging")
	cmd.Flags().StringVar(&f.tls, "tls", "", `"self-signed": serve wss with an ECDSA certificate kept in the data dir; clients pin it`)
	cmd.Flags().StringVar(&f.tlsCert, "tls-cert", "", "serve wss with this PEM certificate (with --tls-key)")
	cmd.Flags().StringVar(&f.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	cmd.Flags().StringVar(&f.metrics, "metrics", "", `serve Prometheus /metrics on this address (e.g. 127.0.0.1:9447), or "main" for the hub's own listener`)
	cmd.Flags().BoolVar(&f.web, "web", true, "serve the web chat to browsers at the hub's URL (--web=false: off)")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	cmd.Flags().StringVar(&f.invites, "invites", string(hub.InvitesAdmins), "who may make NIP-43 invites (hive invite, a REQ for kind 28935): members, admins or off (off: a key that is not a member is refused at AUTH)")
	cmd.Flags().BoolVar(&f.plaintext, "insecure-plaintext", false, "allow plain ws on a non-loopback address (behind a TLS reverse proxy)")
	cmd.Flags().StringVar(&f.store, "store", "", "event log: a postgres:// URL to share one PostgreSQL log between several hive instances (default: SQLite in --data)")
	cmd.Flags().DurationVar(&f.window, "commit-window", 0, "group commit: how long a small batch waits for more events before its fsync (default 1ms, held only after a batch of several; negative: none)")
	cmd.Flags().DurationVar(&f.poll, "store-poll", 0, "how often another instance's commits are looked for without a notification (default 500ms)")
	_ = cmd.Flags().MarkHidden("store-poll")
	def := relay.Defaults()
	cmd.Flags().DurationVar(&f.limits.AuthTimeout, "auth-timeout", def.AuthTimeout, "close connections that have not authenticated (NIP-42) by then")
	cmd.Flags().IntVar(&f.limits.MaxUnauthConns, "max-unauth-conns", def.MaxUnauthConns, "concurrent connections that have not authenticated yet")
	cmd.Flags().IntVar(&f.limits.MaxUnauthPerAddr, "max-unauth-per-ip", def.MaxUnauthPerAddr, "of them, from one source address")
	cmd.Flags().IntVar(&f.limits.MaxPendingConns, "max-pending-conns", def.MaxPendingConns, "connections not upgraded to a websocket yet (TLS handshake, request headers)")
	cmd.Flags().IntVar(&f.limits.MaxPendingPerAddr, "max-pending-per-ip", def.MaxPendingPerAddr, "of them, from one source address")
	cmd.Flags().DurationVar(&f.limits.HeaderTimeout, "header-timeout", def.HeaderTimeout, "time a connection has for its TLS handshake and request headers")
	cmd.Flags().IntVar(&f.limits.MaxConnsPerMember, "max-conns-per-member", def.MaxConnsPerMember, "authenticated connections of one member, its agents' and devices' included")
	cmd.Flags().IntVar(&f.limits.MaxMemberQueued, "max-member-queued-bytes", def.MaxMemberQueued, "outbound bytes queued on one member's connections")
	cmd.Flags().IntVar(&f.limits.MaxMemberReads, "max-member-reads", def.MaxMemberReads, "pages of stored events one member's connections read at once")
	return cmd
}

// hubKeys loads or creates the hub's own key and resolves the admin pubkey.
func hubKeys(dir, adminFlag string, log *slog.Logger) (hub identity.Keys, admin string, err error) {
	load := func(path string) (identity.Keys, error) {
		k, err := identity.LoadKeyFile(path, identity.EnvOrPrompt(os.LookupEnv, nil))
		if errors.Is(err, os.ErrNotExist) {
			if k, err = identity.GenerateKeys(); err != nil {
				return k, err
			}
			if err = identity.SaveKeyFile(path, k, identity.SaveOptions{}); err != nil {
				return k, err
			}
			log.Info("created key", "file", path, "npub", k.Npub())
		}
		return k, err
	}
	if hub, err = load(filepath.Join(dir, "hub.key")); err != nil {
		return hub, "", err
	}
	if adminFlag != "" {
		admin, err = identity.ParsePublicKey(adminFlag)
		if err != nil {
			return hub, "", exitWith(exitUsage, fmt.Errorf("--admin: %w", err))
		}
		return hub, admin, nil
	}
	k, err := load(filepath.Join(dir, "admin.key"))
	return hub, k.PublicHex, err
}

func serve(ctx context.Context, f serveFlags) error {
	level := slog.LevelInfo
	if f.verbose {
		level = slog.LevelDebug
	}
	log, err := newLogger(os.Stderr, f.logFormat, level)
	if err != nil {
		return err
	}
	openStore, err := storeOpener(f.store, f.data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.data, 0o700); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	unlock, err := dataDir(f.data).lock()
	if err != nil {
		return err
	}
	defer unlock()
	hubKey, admin, err := hubKeys(f.data, f.admin, log)
	if err != nil {
		return err
	}
	tlsConf, pin, err := serverTLS(f, dataDir(f.data))
	if err != nil {
		return err
	}
	urls := f.publicURLs
	if len(urls) == 0 {
		scheme := "ws://"
		if tlsConf != nil {
			scheme = "wss://"
		}
		urls = []string{scheme + f.addr}
	}
	for _, u := range urls {
		if _, ok := relay.NormalizeURL(u); !ok {
			return exitWith(exitUsage, fmt.Errorf("--public-url %q: want a ws:// or wss:// URL", u))
		}
	}
	switch hub.InviteMode(f.invites) {
	case hub.InvitesMembers, hub.InvitesAdmins, hub.InvitesOff:
	default:
		return exitWith(exitUsage, fmt.Errorf("--invites %q: want members, admins or off", f.invites))
	}
	m := newHubMetrics()
	h, err := hub.Open(hub.Config{
		Invites:   hub.InviteMode(f.invites),
		OpenStore: openStore,
		Admin:     admin,
		Keys:      hubKey,
		Relay:     relayConfig(f.limits, urls),
		Store:     store.Options{CommitWindow: commitWindow(f.window), FollowPoll: f.poll, OnCommit: m.commitHook},
		Log:       log,
	})
	if err != nil {
		return fmt.Errorf("opening the hub: %w", err)
	}
	defer h.Close()
	rl := h.Relay
	rl.Metrics = m
	m.watch(rl)

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return exitWith(exitConflict, fmt.Errorf("listen on %s: %w (is another hub running? pick another --addr)", f.addr, err))
	}
	pairSrv := endpoint.New(endpoint.Limits{}, log.With("part", "pairing"))
	pairURLs := make([]string, 0, len(urls))
	for _, u := range urls {
		if pu, err := client.PairingURL(u); err == nil {
			pairURLs = append(pairURLs, pu)
		}
	}
	pairSrv.Members(pairURLs, h.IsMember)
	defer pairSrv.Close()
	ln = rl.Listener(ln)
	hooks := webhook.NewHandler(h, webhook.Limits{}, log.With("part", "webhook"))
	handler, err := frontHandler(f, rl, pairSrv, nip86.New(h, urls, log.With("part", "nip86")), hooks, m, tlsConf != nil)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, TLSConfig: tlsConf,
		ReadHeaderTimeout: rl.Config().HeaderTimeout, IdleTimeout: rl.Config().HeaderTimeout, ConnState: rl.ConnState,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	if f.pprof != "" {
		go servePprof(f.pprof, log)
	}
	errc := make(chan error, 1)
	go func() {
		if tlsConf != nil {
			errc <- srv.ServeTLS(ln, "", "")
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	if pin != "" {
		fmt.Fprintf(os.Stdout, "hive: TLS pin %s (clients: hive profile add NAME --hub %s --pin %s ...)\n", pin, urls[0], pin)
	}
	state := serveState{PID: os.Getpid(), StartedAt: time.Now().Unix(), Addr: ln.Addr().String(), PublicURLs: urls, Pin: pin}
	if f.metrics != "" && f.metrics != metricsOnMain {
		stopMetrics, addr, err := m.listen(f.metrics, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
		state.Metrics = addr
	}
	if err := state.write(dataDir(f.data)); err != nil {
		log.Warn("could not write the serve state file", "err", err)
	}
	log.Info("hive hub serving", "addr", ln.Addr().String(), "public", urls, "admin", admin, "data", f.data, "pin", pin, "metrics", state.Metrics)
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	log.Info("shutting down: committing pending writes")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	h.Close()
	log.Info("stopped")
	return nil
}

func servePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	log.Info("pprof serving", "addr", addr)
	if err := http.ListenAndServe(addr, mux); err != nil {
		log.Warn("pprof stopped", "err", err)
	}
}

// relayConfig is the relay's configuration: the limits set by flags, the URLs.
func relayConfig(limits relay.Config, urls []string) relay.Config {
	limits.PublicURLs = urls
	limits.Version = buildinfo.Get(version, commit).Version
	return limits
}

// commitWindow maps the flag to the store's option, where 0 means the default.
func commitWindow(d time.Duration) time.Duration {
	if d < 0 {
		return -1
	}
	return d // 0: the store's default, held only when writes come together
}
