// The owner's view of an agent: its permission requests as buttons with
// the agent's own options (in the alerts bar, seen from any channel) and
// its live transcript from the observer frames in the side pane, with
// cancel and steer for the running turn.
import { h, replace } from './dom.js';

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

/** renderAlerts fills el with every pending permission request of the member's agents. */
export function renderAlerts(el, pending, answer) {
  replace(el, pending.map(({ name, p }) => permissionNode(name, p, answer)));
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
 * renderAgentPane fills el with agent's transcript; w is its watcher
 * ({transcript, cancel(session), steer(session, text)}); onClose closes the pane.
 */
export function renderAgentPane(el, name, w, onClose, onError) {
  const tr = w.transcript;
  const turns = tr.turns || [];
  const running = [...turns].reverse().find((t) => !t.stop && t.session);
  const last = running || [...turns].reverse().find((t) => t.session);
  const answerName = (p) => {
    if (p.answer === 'cancelled') return 'cancelled';
    return (p.options || []).find((o) => o.id === p.answer)?.name || p.answer;
  };
  const log = h('div', { class: 'transcript', 'data-testid': 'agent-transcript', 'aria-live': 'polite' },
    tr.history?.length ? h('p', { class: 'dim' }, `${tr.history.length} earlier turns in this session`) : null,
    turns.length ? turns.map((t) => turnNode(t, answerName)) : h('p', { class: 'dim' }, 'Nothing yet: the transcript shows the agent’s turns as they run.'),
    tr.gaps ? h('p', { class: 'dim' }, `${tr.gaps} frames missed`) : null);
  const steerIn = h('input', { 'data-testid': 'agent-steer', placeholder: running ? 'Steer this turn…' : 'Send the agent a prompt…', 'aria-label': 'steer the agent', disabled: !last });
  const steer = h('form', { class: 'steer', onsubmit: (e) => {
    e.preventDefault();
    const text = steerIn.value.trim();
    if (!text || !last) return;
    steerIn.value = '';
    w.steer(last.session, text).catch(onError);
  } }, steerIn, h('button', { type: 'submit', disabled: !last }, 'Steer'));
  const stick = el.querySelector('.transcript');
  const atBottom = !stick || stick.scrollHeight - stick.scrollTop - stick.clientHeight < 40;
  replace(el,
    h('div', { class: 'pane-head' }, h('h2', null, name, running ? h('span', { class: 'working' }, ' working') : null),
      running ? h('button', { type: 'button', class: 'danger', 'data-testid': 'agent-cancel', onclick: () => w.cancel(running.session).catch(onError) }, 'Cancel turn') : null,
      h('button', { type: 'button', class: 'link', 'aria-label': 'close', 'data-testid': 'pane-close', onclick: onClose }, '✕')),
    log, steer);
  if (atBottom) log.scrollTop = log.scrollHeight;
  else log.scrollTop = stick.scrollTop;
}
