package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/postgres"
	"github.com/spf13/cobra"
)

func newStatusCmd() *cobra.Command {
	var data dataDir
	var storeURL string
	cmd := &cobra.Command{
		Use:   "status [--data DIR [--store postgres://...]]",
		Short: "Your hub, pin, identity and channels; with --data DIR on the hub machine, the hub's uptime, size, members, agents and clients",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("data") {
				return operatorStatus(cmd, data, storeURL)
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				chans, err := s.Channels(ctx)
				if err != nil {
					return err
				}
				var mine []string
				for _, ch := range chans {
					if ch.Role != "" {
						mine = append(mine, ch.ID)
					}
				}
				unread, err := s.Unread(ctx, mine)
				if err != nil {
					return err
				}
				type chanRow struct {
					ID     string `json:"id"`
					Name   string `json:"name"`
					Role   string `json:"role"`
					Unread int    `json:"unread"`
				}
				out := struct {
					Profile  string    `json:"profile,omitempty"`
					Hub      string    `json:"hub"`
					Pin      string    `json:"pin,omitempty"`
					Pubkey   string    `json:"pubkey"`
					Npub     string    `json:"npub"`
					Channels []chanRow `json:"channels"`
				}{Profile: s.t.profile, Hub: s.URL(), Pin: s.t.pin, Pubkey: s.PublicKey(), Npub: s.Npub(), Channels: []chanRow{}}
				for _, ch := range chans {
					if ch.Role != "" {
						out.Channels = append(out.Channels, chanRow{ch.ID, ch.Name, ch.Role, unread[ch.ID].Count})
					}
				}
				return output(cmd, out, func(w io.Writer) error {
					fmt.Fprintf(w, "hub:      %s\n", out.Hub)
					if out.Pin != "" {
						fmt.Fprintf(w, "pin:      %s\n", out.Pin)
					}
					if out.Profile != "" {
						fmt.Fprintf(w, "profile:  %s\n", out.Profile)
					}
					fmt.Fprintf(w, "you:      %s\n", out.Npub)
					fmt.Fprintf(w, "channels: %d\n", len(out.Channels))
					for _, c := range out.Channels {
						fmt.Fprintf(w, "  %-20s %-7s %d unread\n", c.ID, c.Role, c.Unread)
					}
					return nil
				})
			})
		},
	}
	addDataFlag(cmd, &data, "the hub's data directory (operator view, on the hub machine)")
	cmd.Flags().StringVar(&storeURL, "store", "", "with --data: the hub's PostgreSQL log, if it runs on one")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}

// operatorStatus reads the data directory and, if the hub runs, its metrics.
func operatorStatus(cmd *cobra.Command, d dataDir, storeURL string) error {
	if _, err := os.Stat(d.db()); err != nil && storeURL == "" {
		return withHint(exitWith(exitNotFound, fmt.Errorf("no hub data in %s: %w", d, err)), "give the --data DIR the hub was started with")
	}
	db, err := readLog(d.db(), storeURL)
	if err != nil {
		return err
	}
	defer db.Close()
	var q store.Reader = db
	if storeURL != "" {
		q = postgres.Reader(db)
	}
	stats, err := hub.ReadStats(cmd.Context(), q)
	if err != nil {
		return err
	}
	out := struct {
		Data      string    `json:"data"`
		Running   bool      `json:"running"`
		PID       int       `json:"pid,omitempty"`
		UptimeSec int64     `json:"uptime_seconds,omitempty"`
		URLs      []string  `json:"public_urls,omitempty"`
		Pin       string    `json:"pin,omitempty"`
		DBBytes   int64     `json:"db_bytes"`
		Clients   *int      `json:"clients,omitempty"`
		Stats     hub.Stats `json:"stats"`
		Metrics   string    `json:"metrics,omitempty"`
	}{Data: string(d), Stats: stats}
	for _, f := range []string{d.db(), d.db() + "-wal"} {
		if st, err := os.Stat(f); err == nil {
			out.DBBytes += st.Size()
		}
	}
	if _, pin, err := tlspin.LoadPair(d.tlsCert(), d.tlsKey()); err == nil {
		out.Pin = pin
	}
	out.PID, out.Running = d.running()
	if st, err := readServeState(d); err == nil && out.Running && st.PID == out.PID {
		out.URLs, out.Metrics = st.PublicURLs, st.Metrics
		out.UptimeSec = time.Now().Unix() - st.StartedAt
		if st.Pin != "" {
			out.Pin = st.Pin
		}
		if st.Metrics != "" {
			if n, err := scrapeGauge(cmd.Context(), "http://"+st.Metrics+"/metrics", "hive_connections"); err == nil {
				out.Clients = &n
			}
		}
	}
	return output(cmd, out, func(w io.Writer) error {
		state := "not running"
		if out.Running {
			state = fmt.Sprintf("running (pid %d)", out.PID)
			if out.UptimeSec > 0 {
				state = fmt.Sprintf("running (pid %d, up %s)", out.PID, time.Duration(out.UptimeSec)*time.Second)
			}
		}
		fmt.Fprintf(w, "hub:      %s\n", state)
		if len(out.URLs) > 0 {
			fmt.Fprintf(w, "urls:     %s\n", strings.Join(out.URLs, ", "))
		}
		if out.Pin != "" {
			fmt.Fprintf(w, "pin:      %s\n", out.Pin)
		}
		fmt.Fprintf(w, "database: %s (%d bytes, %d events)\n", d.db(), out.DBBytes, stats.Events)
		fmt.Fprintf(w, "members:  %d\nagents:   %d\nchannels: %d\n", stats.Members, stats.Agents, stats.Channels)
		if stats.Search != nil {
			fmt.Fprintf(w, "search:   %s\n", stats.Search)
		} else {
			fmt.Fprintln(w, "search:   no index yet (the hub builds it when it starts)")
		}
		if out.Clients != nil {
			fmt.Fprintf(w, "clients:  %d connected\n", *out.Clients)
		} else if out.Running {
			fmt.Fprintln(w, "clients:  unknown (start the hub with --metrics ADDR to see them)")
		}
		return nil
	})
}

// scrapeGauge reads one unlabelled gauge from a Prometheus text endpoint.
func scrapeGauge(ctx context.Context, url, name string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int(f), err
		}
	}
	return 0, errors.New(name + " not found")
}
