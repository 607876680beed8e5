// The member's own agents watched through their observer frames
// (web/src/hub/observer.js): one watcher per agent, started as soon as the
// agent's profile is known, so a permission request shows from any channel.
import { watchAgent } from '../hub/observer.js';

/** Agents keeps a watcher per agent of the member. */
export class Agents {
  constructor(session) {
    this.s = session;
    this.watchers = new Map(); // agent pk -> watcher
  }

  /** list is the member's agents (profiles whose attestation names the member). */
  list() {
    return this.s.model.names.agentsOf(this.s.member);
  }

  /** ensure starts watching agents not watched yet. */
  ensure() {
    for (const pk of this.list()) {
      if (this.watchers.has(pk)) continue;
      try {
        this.watchers.set(pk, watchAgent(this.s.hub, pk, { onchange: (events) => this.turns(pk, events) }));
      } catch (e) {
        this.s.fail(e);
      }
    }
  }

  // turns feeds the working signal (spec/chat.md: the observer source
  // first) from the transcript's prompt and stop events.
  turns(pk, events) {
    const live = this.s.model.live;
    for (const e of events || []) {
      const t = e.turn;
      if (!t || t.replay) continue;
      if (e.kind === 'prompt' || e.kind === 'text' || e.kind === 'tool') live.turnStarted(pk, t.channel, t.turn, Date.now());
      if (e.kind === 'stop') live.turnEnded(pk, t.turn);
    }
    this.s.changed();
  }

  watcher(pk) {
    return this.watchers.get(pk);
  }

  /** pendingOf is agent's permission requests waiting for an answer. */
  pendingOf(pk) {
    return this.watchers.get(pk)?.transcript.pending() || [];
  }

  /** pending is every waiting request: [{agent, name, p}]. */
  pending() {
    const out = [];
    for (const pk of this.watchers.keys()) {
      for (const p of this.pendingOf(pk)) out.push({ agent: pk, name: this.s.model.names.name(pk), p });
    }
    return out;
  }

  /** answer replies to a permission request with optionId. */
  answer(agent, p, optionId) {
    return this.watchers.get(agent).answer(p, optionId);
  }

  close() {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
