package agentbridge

import (
	"context"
	"encoding/json"
	"time"

	obs "github.com/ainb/hive/client/observer"
	acp "github.com/coder/acp-go-sdk"
	"github.com/nbd-wtf/go-nostr"
)

// requestPermission applies the permissions policy. With "ask" the request
// waits for the owner's control frame; after permission_timeout the
// reject_once option is chosen (cancelled if there is none).
func (r *runner) requestPermission(ctx context.Context, p *agentProc, rpcID json.RawMessage, req acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	if r.tools.enabled && hiveReadTool(req) {
		r.turns.settled(string(req.SessionId), rpcID) // registered by permissionSeen; no owner is asked
		return outcome(pickOption(req.Options, acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways))
	}
	switch r.cfg.Permissions {
	case PermAllow:
		return outcome(pickOption(req.Options, acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways))
	case PermDeny:
		return outcome(pickOption(req.Options, acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways))
	}
	pp := r.turns.permission(string(req.SessionId), rpcID, req.Options)
	r.log.Info("permission requested; waiting for the owner", "session", pp.session, "request", string(rpcID), "tool", req.ToolCall.ToolCallId)
	timer := time.NewTimer(r.cfg.permTimeout)
	defer timer.Stop()
	var out acp.RequestPermissionOutcome
	select {
	case out = <-pp.answer:
	case <-timer.C:
		out = pickOption(req.Options, acp.PermissionOptionKindRejectOnce)
		r.log.Info("permission timed out: rejected", "session", pp.session, "request", string(rpcID))
	case <-ctx.Done():
		out = acp.NewRequestPermissionOutcomeCancelled()
	case <-p.exited:
		out = acp.NewRequestPermissionOutcomeCancelled()
	}
	r.turns.settled(pp.session, rpcID)
	p.last.Store(time.Now().UnixNano()) // the idle clock restarts after the owner's answer
	return outcome(out)
}

// permissionSeen registers a request the moment its raw line is read, so
// the owner's answer (sent after seeing the same line as a frame) finds it.
func (r *runner) permissionSeen(session string, rpcID json.RawMessage, options []acp.PermissionOption, line []byte) {
	if r.cfg.Permissions == PermAsk {
		r.turns.permissionLine(session, rpcID, options, line)
	}
}

// resendPending queues the frame of every permission request still waiting
// for the owner once more (new seq, same raw line), so a watch started after
// the request was raised can answer it.
func (r *runner) resendPending() {
	for _, pp := range r.turns.waitingLines() {
		ref := turnRef{session: pp.session}
		if _, t := r.turns.inSession(pp.session); t != nil {
			ref = t.ref()
		}
		r.obs.resend(ref, pp.raw)
	}
}

func outcome(o acp.RequestPermissionOutcome) acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: o}
}

// pickOption selects the first option of the first kind present, or
// cancelled when none is offered.
func pickOption(opts []acp.PermissionOption, kinds ...acp.PermissionOptionKind) acp.RequestPermissionOutcome {
	for _, k := range kinds {
		for _, o := range opts {
			if o.Kind == k {
				return acp.NewRequestPermissionOutcomeSelected(o.OptionId)
			}
		}
	}
	return acp.NewRequestPermissionOutcomeCancelled()
}

// onControl handles one control frame from the hub. Frames that are not from
// the owner or a live paired device of the owner, stale, or malformed are
// ignored (logged).
func (r *runner) onControl(ctx context.Context, h HubConn, ev *nostr.Event) {
	ck, err := r.controller(ctx, h, ev.PubKey)
	if err != nil {
		r.log.Info("ignoring control frame", "event", ev.ID, "from", ev.PubKey, "why", err)
		return
	}
	c, err := obs.ParseControl(ev, ck, time.Now())
	if err != nil {
		r.log.Info("ignoring control frame", "event", ev.ID, "from", ev.PubKey, "why", err)
		return
	}
	switch c.Type {
	case obs.CtlWatch:
		if ev.PubKey != r.owner { // the owner always receives the frames
			r.obs.watch(ev.PubKey, ck, time.Now().Add(obs.WatchLease))
			r.log.Info("paired device watches the agent", "device", ev.PubKey)
		}
		r.resendPending()
	case obs.CtlPermission:
		if !r.turns.answerPermission(c.Session, c.Request, c.Option) {
			r.log.Info("permission control frame matches no pending request (or an option not offered)", "session", c.Session, "request", string(c.Request))
		}
	case obs.CtlCancel:
		p, t := r.turns.inSession(c.Session)
		if p == nil {
			r.log.Info("cancel: no turn running in session", "session", c.Session)
			return
		}
		t.mu.Lock()
		t.stopNote = "cancelled by the owner"
		if ev.PubKey != r.owner {
			t.stopNote = "cancelled by the owner's device"
		}
		t.mu.Unlock()
		r.cancelSession(p, c.Session)
	case obs.CtlSteer:
		go r.steer(ctx, c)
	}
}

// steer injects text into a running turn through _session/steering where the
// agent advertised it; otherwise (or if the agent declines) the text is
// queued as the channel's next prompt.
func (r *runner) steer(ctx context.Context, c obs.Control) {
	p, t := r.turns.inSession(c.Session)
	if p != nil && p.info.Steering {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		raw, err := p.conn.CallExtension(sctx, "_session/steering", map[string]any{
			"sessionId": c.Session,
			"prompt":    []acp.ContentBlock{acp.TextBlock(c.Text)},
			"_meta":     map[string]any{"steering": map[string]any{"idleBehavior": "promptRequired"}},
		})
		var res struct {
			Outcome string `json:"outcome"`
		}
		if err == nil && json.Unmarshal(raw, &res) == nil {
			switch res.Outcome {
			case "injected": // part of the running turn (or, if that turn ended first, an untracked one)
				r.log.Info("steer injected", "session", c.Session)
				return
			case "startedNewTurn": // the agent answers it in a turn of its own: queueing it too would answer it twice
				r.log.Info("steer started a turn of the agent's own; its answer is posted when the session goes quiet", "session", c.Session)
				return
			}
		}
		r.log.Info("steer not injected; queued as the next prompt", "session", c.Session, "outcome", res.Outcome, "err", err)
	}
	channel := ""
	if t != nil {
		channel = t.channel
	} else {
		channel = r.state.ChannelOf(c.Session)
	}
	if channel == "" {
		r.log.Info("steer: unknown session", "session", c.Session)
		return
	}
	now := time.Now()
	r.disp.enqueue(Mention{Channel: channel, Author: r.owner, Content: c.Text, At: now, Received: now})
}
