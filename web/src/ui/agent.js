// The owner's view of an agent: its permission requests as buttons with
// the agent's own options (in the alerts bar, seen from any channel) and
// its live transcript from the observer frames in the side pane, with
// cancel and steer for the running turn.
import { h, Keyed, place, replace } from './dom.js';

/** requestId is a permission request's JSON-RPC id as the data-request-id attribute holds it. */
export function requestId(p) {
  return typeof p.request === 'object' ? JSON.stringify(p.request) : String(p.request);
}

/** permissionNode shows one pending request; answer(p, optionId) replies. */
export function permissionNode(agentName, p, answer) {
  const node = h('div', { class: 'permission', 'data-testid': 'permission-request', 'data-request-id': requestId(p), 'data-session': p.session, role: 'group',
    'aria-label': `${agentName} asks: ${p.title || 'permission'}` },
  h('div', null, h('strong', null, agentName), ' asks: ', p.title || 'permission to run a tool'),
  h('div', { class: 'options' }, (p.options || []).map((o) => h('button', { type: 'button', 'data-testid': 'permission-option', 'data-option-id': o.id,
    'data-kind': o.kind, class: /^allow/.test(o.kind || '') ? 'primary' : '', onclick: (e) => {
      node.querySelectorAll('button').forEach((b) => (b.disabled = true));
      e.currentTarget.setAttribute('aria-pressed', 'true');
      answer(p, o.id);
    } }, o.name || o.id))));
  return node;
}

/** renderAlerts fills el with every pending permission request of the member's agents; keyed (a Keyed) keeps their nodes. */
export function renderAlerts(el, keyed, pending, answer) {
  place(el, pending.map(({ agent, name, p }) => keyed.node(agent + ' ' + p.session + ' ' + requestId(p), name, () => permissionNode(name, p, answer))));
  keyed.sweep();
  el.hidden = pending.length === 0;
}

function turnNode(t, answerName) {
  const parts = [];
  if (t.prompt) parts.push(h('div', { class: 'prompt' }, t.prompt));
  if (t.thoughts) parts.push(h('div', { class: 'thoughts' }, t.thoughts));
  if (t.plan?.length) parts.push(h('ol', { class: 'plan' }, t.plan.map((p) => h('li', { 'data-status': p.status }, p.content))));
  for (const tool of t.tools || []) parts.push(h('div', { class: 'tool', 'data-status': tool.status }, tool.title || tool.kind || tool.id, h('span', { class: 'dim' }, ' ' + (tool.status || ''))));
  for (const p of t.permissions || []) {
    parts.push(h('div', { class: 'dim' }, '⚠ ', p.title || 'permission', ': ', p.answer ? answerName(p) : 'waiting for your answer'));
  }
  if (t.text) parts.push(h('div', { class: 'text' }, t.text));
  if (t.stop) parts.push(h('div', { class: 'dim' }, t.stop === 'end_turn' ? '— done' : `— ${t.stop}`));
  return h('div', { class: 'turn', 'data-testid': 'agent-turn', 'data-turn': t.turn, 'data-session': t.session }, parts);
}

/**
 * AgentPane is the side pane with an agent's transcript; show(name, w)
 * renders watcher w ({transcript, cancel(session), steer(session, text)}).
 * Its controls are built once, so typing a steer survives live frames.
 */
export class AgentPane {
  constructor(onClose, onError) {
    this.keyed = new Keyed();
    this.title = h('h2');
    this.cancel = h('button', { type: 'button', class: 'danger', 'data-testid': 'agent-cancel', hidden: true,
      onclick: () => this.running && this.w.cancel(this.running.session).catch(onError) }, 'Cancel turn');
    this.log = h('div', { class: 'transcript', 'data-testid': 'agent-transcript', 'aria-live': 'polite' });
    this.steerIn = h('input', { 'data-testid': 'agent-steer', 'aria-label': 'steer the agent' });
    this.steerBtn = h('button', { type: 'submit' }, 'Steer');
    const steer = h('form', { class: 'steer', onsubmit: (e) => {
      e.preventDefault();
      const text = this.steerIn.value.trim();
      if (!text || !this.last) return;
      this.steerIn.value = '';
      this.w.steer(this.last.session, text).catch(onError);
    } }, this.steerIn, this.steerBtn);
    this.el = h('div', { class: 'pane-body', 'data-testid': 'agent-pane' },
      h('div', { class: 'pane-head' }, this.title, this.cancel,
        h('button', { type: 'button', class: 'link', 'aria-label': 'close', 'data-testid': 'pane-close', onclick: onClose }, '✕')),
      this.log, steer);
  }

  show(name, w) {
    this.w = w;
    const tr = w.transcript;
    const turns = tr.turns || [];
    this.running = [...turns].reverse().find((t) => !t.stop && t.session);
    this.last = this.running || [...turns].reverse().find((t) => t.session);
    replace(this.title, name, this.running ? h('span', { class: 'working' }, ' working') : '');
    this.cancel.hidden = !this.running;
    this.steerIn.placeholder = this.running ? 'Steer this turn…' : 'Send the agent a prompt…';
    this.steerIn.disabled = this.steerBtn.disabled = !this.last;
    const answerName = (p) => (p.answer === 'cancelled' ? 'cancelled' : (p.options || []).find((o) => o.id === p.answer)?.name || p.answer);
    const log = this.log;
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    const nodes = turns.map((t, i) => this.keyed.node('t' + i + t.turn, JSON.stringify(t), () => turnNode(t, answerName)));
    if (tr.history?.length) nodes.unshift(this.keyed.node('history', String(tr.history.length), () => h('p', { class: 'dim' }, `${tr.history.length} earlier turns in this session`)));
    if (!turns.length) nodes.push(this.keyed.node('empty', '', () => h('p', { class: 'dim' }, 'Nothing yet: the transcript shows the agent’s turns as they run.')));
    if (tr.gaps) nodes.push(this.keyed.node('gaps', String(tr.gaps), () => h('p', { class: 'dim' }, `${tr.gaps} frames missed`)));
    this.keyed.sweep();
    place(log, nodes);
    if (atBottom) log.scrollTop = log.scrollHeight;
  }
}
