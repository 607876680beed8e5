// The sidebar: channels and DMs with unread and mention counts, open
// channels to join, the member's agents with their working signal, and who
// is signed in with the sign-out button.
import { h, replace } from './dom.js';
import { elapsed } from './time.js';

function item(c, s, go) {
  const u = s.unread(c.id);
  const current = c.id === s.current;
  const label = (c.type === 'dm' ? '@ ' : '# ') + s.title(c.id);
  const badges = [];
  if (u.mentions) badges.push(h('span', { class: 'badge mentions', title: `${u.mentions} mentions` }, '@' + u.mentions));
  if (u.unread) badges.push(h('span', { class: 'badge', title: `${u.unread} unread` }, String(u.unread)));
  const a11y = [label, u.unread ? `${u.unread} unread` : '', u.mentions ? `${u.mentions} mentions` : ''].filter(Boolean).join(', ');
  return h('li', null, h('button', { type: 'button', class: 'chan' + (u.unread ? ' has-unread' : ''), 'data-testid': 'channel-item',
    'data-channel': c.id, 'data-unread': u.unread, 'data-mentions': u.mentions, 'aria-current': String(current), 'aria-label': a11y,
    onclick: () => go(c.id) }, h('span', { class: 'name' }, label), badges));
}

/** renderSidebar fills el from session s; actions: open(ch), join(ch), openAgent(pk), signOut(). */
export function renderSidebar(el, s, actions, now) {
  const streams = s.channels.filter((c) => c.type !== 'dm');
  const dms = s.channels.filter((c) => c.type === 'dm');
  const agents = s.agents.list();
  const parts = [
    h('h3', { id: 'side-ch' }, 'Channels'),
    h('ul', { 'aria-labelledby': 'side-ch' }, streams.map((c) => item(c, s, actions.open))),
  ];
  if (dms.length) parts.push(h('h3', { id: 'side-dm' }, 'Direct messages'), h('ul', { 'aria-labelledby': 'side-dm' }, dms.map((c) => item(c, s, actions.open))));
  if (s.others.length) {
    parts.push(h('h3', { id: 'side-join' }, 'Other channels'), h('ul', { 'aria-labelledby': 'side-join' }, s.others.map((c) =>
      h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'channel-join', 'data-channel': c.id, title: 'Join #' + (c.name || c.id),
        onclick: () => actions.join(c.id) }, h('span', { class: 'name dim' }, '# ' + (c.name || c.id)), h('span', { class: 'dim' }, 'join'))))));
  }
  if (agents.length) {
    parts.push(h('h3', { id: 'side-ag' }, 'Your agents'), h('ul', { 'aria-labelledby': 'side-ag' }, agents.map((pk) => {
      const w = s.model.live.working(pk, '', now);
      const pending = s.pendingOf(pk).length;
      return h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'agent-item', 'data-agent': pk,
        'aria-current': String(s.pane === 'agent:' + pk), onclick: () => actions.openAgent(pk) },
        h('span', { class: 'name' }, (pending ? '⚠ ' : '') + s.model.names.name(pk)),
        w.working ? h('span', { class: 'working', 'data-testid': 'agent-working' }, `working ${elapsed(w.elapsed)}`) : null));
    })));
  }
  parts.push(h('div', { class: 'foot' },
    h('div', { class: 'who', title: s.self }, 'Signed in as ', h('strong', null, s.model.names.label(s.self))),
    h('button', { type: 'button', class: 'link danger', 'data-testid': 'sign-out', onclick: actions.signOut }, 'Sign out and forget this key')));
  replace(el, parts);
}
