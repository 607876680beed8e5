package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// webTeam is the browser tests' world over the real binary: a TLS hub, its
// admin "owner" (whose device the browser becomes) and a second member
// "bob", both as CLI profiles in one HIVE_HOME, in channels room and lobby.
type webTeam struct {
	h     *webHub
	cli   *cli
	owner string // hex pubkeys
	bob   string
	b     *browser
}

// startWebTeam starts the hub with serveArgs, the profiles, the channels
// and one browser.
func startWebTeam(t testing.TB, serveArgs ...string) *webTeam {
	t.Helper()
	h := startWebHub(t, serveArgs...)
	c := newCLI(t)
	admin := filepath.Join(h.Data, "admin.key")
	tm := setUpCLITeam(t, c, cliTeamSpec{hub: h.WS, pin: h.Pin, admin: "owner", adminKey: admin, nameAdmin: true,
		members: []string{"bob"}, creator: "owner", channels: []string{"room", "lobby"}})
	w := &webTeam{h: h, cli: c, owner: keyOf(t, admin).PublicHex, bob: keyOf(t, tm.keys["bob"]).PublicHex}
	w.b = newBrowser(t, h.Pin)
	return w
}

func keyOf(t testing.TB, path string) identity.Keys {
	t.Helper()
	k, err := identity.LoadKeyFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// nsecOf is the nsec of a key file (for the page's key-import).
func nsecOf(t testing.TB, path string) string {
	t.Helper()
	nsec, err := nip19.EncodePrivateKey(keyOf(t, path).SecretHex)
	if err != nil {
		t.Fatal(err)
	}
	return nsec
}

// pairBrowser pairs the page as a device of owner with a real `hive pair`:
// the page shows the SAS hive pair shows, both confirm, and the page
// connects as the device. It returns the device's pubkey.
func (w *webTeam) pairBrowser(t testing.TB) string {
	t.Helper()
	pair := w.cli.start("pair", "--profile", "owner")
	uri := pair.next("uri")["uri"].(string)
	w.b.open(w.h.URL)
	w.b.setValue(tid("pair-uri"), uri)
	w.b.click(tid("pair-start"))
	sas := pair.next("sas")["sas"].(string)
	w.b.waitUntil("the page shows hive pair's SAS "+sas,
		fmt.Sprintf(`document.querySelector(%q)?.dataset.sas === %q`, tid("pair-sas"), sas))
	if shown := strings.ReplaceAll(w.b.text(tid("pair-sas")), " ", ""); shown != sas {
		t.Fatalf("the page shows the SAS %q, hive pair %q", shown, sas)
	}
	w.b.click(tid("pair-confirm"))
	pair.answer("y")
	done := pair.next("done")
	if code := pair.exit(); code != 0 {
		t.Fatalf("hive pair exit %d: %s", code, pair.errors())
	}
	w.b.waitState("connected")
	return done["device"].(string)
}

// importKey signs the page in with the nsec of a key file.
func (w *webTeam) importKey(t testing.TB, keyFile string) {
	t.Helper()
	w.b.open(w.h.URL)
	w.b.importKey(nsecOf(t, keyFile), "")
}

// signInAsOwner signs the page in with the owner's key (the hub's admin
// key), as the owner's own browser would be.
func (w *webTeam) signInAsOwner(t testing.TB) {
	t.Helper()
	w.importKey(t, filepath.Join(w.h.Data, "admin.key"))
}

// openChannel clicks a channel in the sidebar, once the page has opened
// its first channel by itself, and waits until it is the open one. The
// sidebar is rebuilt on every change, so a click whose press and release
// land on two generations of the button is lost (no click event); it is
// clicked again then, up to 5 times.
func (w *webTeam) openChannel(t testing.TB, id string) {
	t.Helper()
	w.b.waitVisible(`[data-testid="channel-item"][aria-current="true"]`)
	open := fmt.Sprintf(`!!document.querySelector(%q)`, channelItem(id)+`[aria-current="true"]`)
	for try := 1; ; try++ {
		w.b.click(channelItem(id))
		if w.b.within(2*time.Second, open) {
			break
		}
		if try == 5 {
			w.b.fail("open channel "+id, fmt.Errorf("5 clicks on its sidebar item did not open it"))
		}
		t.Logf("a click on channel %s was lost (try %d)", id, try)
	}
	w.b.waitVisible(tid("timeline"))
}

// mainComposer is the channel's composer (not the thread pane's).
const mainComposer = `[data-testid="composer"]:not([data-testid="thread-pane"] *)`

func channelItem(id string) string {
	return fmt.Sprintf(`[data-testid="channel-item"][data-channel=%q]`, id)
}

func messageSel(id string) string {
	return fmt.Sprintf(`[data-testid="message"][data-event-id=%q]`, id)
}

// waitMessage waits until the main timeline shows a message whose text
// contains sub, and returns its event id.
func (w *webTeam) waitMessage(t testing.TB, scope, sub string) string {
	t.Helper()
	find := fmt.Sprintf(`[...document.querySelectorAll(%q)].find(m => m.textContent.includes(%q))`,
		scope+" "+tid("message"), sub)
	w.b.waitUntil("a message with "+sub, "!!"+find)
	return evalAs[string](w.b, find+".dataset.eventId")
}

// send posts text as a CLI profile and returns the event id.
func (w *webTeam) send(t testing.TB, profile, channel, text string, extra ...string) string {
	t.Helper()
	out := w.cli.ok(append([]string{"send", channel, text, "--profile", profile, "--json"}, extra...)...)
	return rows(t, out)[0].ID
}

// unread is the unread count `hive channel list` shows profile for channel.
func (w *webTeam) unread(t testing.TB, profile, channel string) int {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(w.cli.ok("channel", "list", "--profile", profile, "--json")))
	for sc.Scan() {
		var ch struct {
			ID     string
			Unread *int
		}
		if json.Unmarshal(sc.Bytes(), &ch) == nil && ch.ID == channel && ch.Unread != nil {
			return *ch.Unread
		}
	}
	t.Fatalf("hive channel list --profile %s shows no unread count for %s", profile, channel)
	return 0
}

// tail follows channel as profile from now on.
func (w *webTeam) tail(t testing.TB, profile, channel string) *tailProc {
	t.Helper()
	return w.cli.tail(t, profile, channel)
}

// memberClient connects as the key of a CLI profile.
func (w *webTeam) memberClient(t testing.TB, profile string) *client.Client {
	t.Helper()
	c, err := client.Connect(ctxT(t), client.Options{URLs: []string{w.h.WS}, Keys: keyOf(t, profileOf(t, w.cli, profile).Key), Pin: w.h.Pin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
