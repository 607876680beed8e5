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
        // with the model, the frames feed its working signal (the observer source)
        this.watchers.set(pk, watchAgent(this.s.hub, pk, { model: this.s.model, onchange: () => this.s.changed(), onerror: (e) => this.s.fail(e) }));
      } catch (e) {
        this.s.fail(e);
      }
    }
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
