package hub

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/webhook"
	"github.com/ainb/hive/workflow"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// workflowHook: a webhook (30462) is set by an owner or admin of the
// channel of the workflow it names (d = a = its address); it holds a hook
// id that is no other workflow's and a secret sealed to the hub, or
// neither (deleted).
func (t *tx) workflowHook(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	if !actor.atLeast(roleAdmin) {
		return nil, reject("restricted: only a channel owner or admin may set a workflow's webhook in channel %s", c.id)
	}
	addr := tagValue(ev, "d")
	if tagValue(ev, "a") != addr {
		return nil, reject("invalid: a webhook's d and a tags both name its workflow's address (30460:<author>:<name>)")
	}
	def, err := t.definitionAt(addr)
	if err != nil {
		return nil, err
	}
	if def == nil {
		return nil, reject("invalid: no workflow definition at %s: apply the workflow first", addr)
	}
	if ch := tagValue(def, "h"); ch != c.id {
		return nil, reject("invalid: the workflow %s lives in channel %s, not %s", addr, ch, c.id)
	}
	hook := tagValue(ev, "w")
	if hook == "" {
		if ev.Content != "" {
			return nil, reject("invalid: a deleted webhook (no w tag) has no content")
		}
		return nil, nil
	}
	if !webhook.ValidHookID(hook) {
		return nil, reject("invalid: the w tag is the hook id: 32 lower-case hex characters")
	}
	if t.secret != "" {
		if s, err := openSealed(t.secret, ev); err != nil || webhook.CheckSecret(s) != nil {
			return nil, reject("invalid: the content must be the webhook's secret (whsec_...) NIP-44-encrypted to the hub's key %s", t.self)
		}
	}
	others, err := t.tagged(kinds.WorkflowHook, "w", hook)
	if err != nil {
		return nil, err
	}
	for _, o := range others {
		if tagValue(o, "d") != addr {
			return nil, reject("invalid: hook id %s belongs to another workflow: make a new one", hook)
		}
	}
	return nil, nil
}

// webhookDelivery: the hub stores one delivery (40463) per hook and
// delivery id; another is refused as a duplicate naming the first.
func (t *tx) webhookDelivery(ev *nostr.Event) error {
	hook, id := tagValue(ev, "w"), tagValue(ev, "i")
	stored, err := t.tagged(kinds.WebhookDelivery, "i", id)
	if err != nil {
		return err
	}
	for _, o := range stored {
		if tagValue(o, "w") == hook {
			return reject("duplicate: delivery %q of hook %s is stored as event %s", id, hook, o.ID)
		}
	}
	return nil
}

// definitionAt is the stored workflow definition at a 30460 address, or nil.
func (t *tx) definitionAt(addr string) (*nostr.Event, error) {
	a, err := kinds.ParseAddress(addr)
	if err != nil || a.Kind != kinds.WorkflowDef {
		return nil, nil
	}
	var raw string
	err = t.QueryRow(`SELECT raw FROM events WHERE pubkey = ? AND kind = ? AND d = ?`, a.PubKey, a.Kind, a.D).Scan(&raw)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	ev := &nostr.Event{}
	return ev, json.Unmarshal([]byte(raw), ev)
}

// tagged are the stored events of kind with the single-letter tag name =
// value, through the log's tag index.
func (t *tx) tagged(kind int, name, value string) ([]*nostr.Event, error) {
	rows, err := t.Query(`SELECT e.raw FROM tags g JOIN events e ON e.seq = g.seq WHERE g.name = ? AND g.value = ? AND e.kind = ?`, name, value, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*nostr.Event
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		ev := &nostr.Event{}
		if json.Unmarshal([]byte(raw), ev) == nil {
			out = append(out, ev)
		}
	}
	return out, rows.Err()
}

// openSealed opens a hook's secret, NIP-44-encrypted by its author to the
// hub's key (secret, hex).
func openSealed(secret string, ev *nostr.Event) (string, error) {
	ck, err := nip44.GenerateConversationKey(ev.PubKey, secret)
	if err != nil {
		return "", err
	}
	return nip44.Decrypt(ev.Content, ck)
}

// notAccepted is a refusal the sender hears as ErrNotAccepted; why is
// for the hub's log.
func (h *Hub) notAccepted(hook, why string) error {
	h.log.Info("webhook delivery not accepted", "hook", hook, "reason", why)
	return webhook.ErrNotAccepted
}

// Deliver verifies a request to a hook and stores it as a hub-signed
// delivery (40463) of the hook's workflow, once per delivery id
// (webhook.Hub). Nothing is stored unless the hook is the newest of its
// workflow, its secret verifies the signature, its author is still an
// owner or admin of the channel, and the workflow exists, is enabled and
// has a webhook trigger.
func (h *Hub) Deliver(ctx context.Context, hook string, hd http.Header, body []byte) (webhook.Result, error) {
	if h.keys.SecretHex == "" {
		return webhook.Result{}, errors.New("this hub has no key of its own to sign with")
	}
	cur, err := h.currentHook(ctx, hook)
	if err != nil || cur == nil {
		if err != nil {
			return webhook.Result{}, err
		}
		return webhook.Result{}, h.notAccepted(hook, "no such hook")
	}
	secret, err := openSealed(h.keys.SecretHex, cur)
	if err != nil {
		return webhook.Result{}, h.notAccepted(hook, "its secret does not open with this hub's key: set a new one (hive workflow hook NAME --rotate)")
	}
	v, err := webhook.Verify(secret, hd, body, h.now())
	if err != nil {
		return webhook.Result{}, h.notAccepted(hook, err.Error())
	}
	def, why, err := h.hookWorkflow(ctx, cur)
	if err != nil {
		return webhook.Result{}, err
	}
	if why != "" {
		return webhook.Result{}, h.notAccepted(hook, why)
	}
	raw, err := json.Marshal(webhook.NewContent(v, hd, body))
	if err != nil {
		return webhook.Result{}, err
	}
	now := h.now()
	addr := tagValue(cur, "d")
	ev, err := h.sign(kinds.WebhookDelivery, string(raw), nostr.Tags{{"h", tagValue(def, "h")}, {"a", addr}, {"w", hook},
		{"i", v.Delivery}, {"scheme", v.Scheme}, {kinds.MsTag, strconv.Itoa(now.Nanosecond() / 1e6)}}, now.Unix())
	if err != nil {
		return webhook.Result{}, err
	}
	_, err = h.Store.Publish(ctx, ev)
	var rej *store.Rejection
	if errors.As(err, &rej) && strings.HasPrefix(rej.Msg, "duplicate:") || errors.Is(err, store.ErrDuplicate) {
		first, err := h.storedDelivery(ctx, hook, v.Delivery)
		if err != nil || first == nil {
			return webhook.Result{}, fmt.Errorf("reading the stored delivery %q: %v", v.Delivery, err)
		}
		return webhook.Result{Delivery: first.ID, Run: runOf(def, first), Duplicate: true}, nil
	}
	if err != nil {
		return webhook.Result{}, err
	}
	h.Relay.Broadcast(ev)
	h.log.Info("webhook delivery stored", "hook", hook, "workflow", addr, "delivery", v.Delivery, "event", ev.ID)
	return webhook.Result{Delivery: ev.ID, Run: runOf(def, ev)}, nil
}

// runOf is the id of the run a delivery starts: the claim its workflow's
// runner makes of it.
func runOf(def, delivery *nostr.Event) string {
	return kinds.RunClaimEvent(tagValue(def, "p"), tagValue(delivery, "h"), tagValue(delivery, "a"), "webhook", delivery.ID, delivery.CreatedAt, 1).ID
}

// currentHook is the hook event holding hook id if it is the newest of
// its workflow (a rotation by another admin keeps the id), else nil.
func (h *Hub) currentHook(ctx context.Context, hook string) (*nostr.Event, error) {
	evs, err := h.Store.Query(ctx, nostr.Filter{Kinds: []int{kinds.WorkflowHook}, Tags: nostr.TagMap{"w": {hook}}, Limit: 1})
	if err != nil || len(evs) == 0 {
		return nil, err
	}
	all, err := h.Store.Query(ctx, nostr.Filter{Kinds: []int{kinds.WorkflowHook}, Tags: nostr.TagMap{"d": {tagValue(evs[0], "d")}}, Limit: 100})
	if err != nil {
		return nil, err
	}
	var newest *nostr.Event
	for _, ev := range all {
		if newest == nil || webhook.Newer(ev, newest) {
			newest = ev
		}
	}
	if newest == nil || tagValue(newest, "w") != hook {
		return nil, nil
	}
	return newest, nil
}

// hookWorkflow is the definition a hook event names, or why it takes no
// delivery now.
func (h *Hub) hookWorkflow(ctx context.Context, hook *nostr.Event) (*nostr.Event, string, error) {
	a, err := kinds.ParseAddress(tagValue(hook, "d"))
	if err != nil {
		return nil, "its address does not parse", nil
	}
	evs, err := h.Store.Query(ctx, nostr.Filter{Kinds: []int{kinds.WorkflowDef}, Authors: []string{a.PubKey}, Tags: nostr.TagMap{"d": {a.D}}, Limit: 1})
	if err != nil {
		return nil, "", err
	}
	if len(evs) == 0 {
		return nil, "its workflow was deleted", nil
	}
	def := evs[0]
	v := h.snapshotView()
	as, _ := actsAs(v, hook.PubKey, h.now().Unix())
	if r, _ := v.role(tagValue(def, "h"), as); !r.atLeast(roleAdmin) {
		return nil, "its author is no longer an owner or admin of the workflow's channel: an owner or admin sets a new one (hive workflow hook NAME --rotate)", nil
	}
	if tagValue(def, "enabled") == "false" {
		return nil, "the workflow is disabled", nil
	}
	d, err := workflow.Parse(a.D, []byte(def.Content))
	if err != nil || d.On.Webhook == nil {
		return nil, "the workflow has no webhook trigger", nil
	}
	return def, "", nil
}

// storedDelivery is the delivery stored for hook and a delivery id, read
// on the writer: the copy refused may have been refused in the very batch
// that stores the first, before its commit.
func (h *Hub) storedDelivery(ctx context.Context, hook, id string) (*nostr.Event, error) {
	var first *nostr.Event
	err := h.Store.Exec(ctx, func(sqlTx store.WriteTx) error {
		evs, err := (&tx{WriteTx: sqlTx}).tagged(kinds.WebhookDelivery, "i", id)
		for _, ev := range evs {
			if tagValue(ev, "w") == hook {
				first = ev
			}
		}
		return err
	})
	return first, err
}
