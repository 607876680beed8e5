// The sidebar: channels and DMs with unread and mention counts, open
// channels to join, the member's agents with their working signal, and who
// is signed in with the sign-out button. Its nodes are kept between renders
// and rebuilt only when what they show changed, so a click is never lost to
// a live update.
import { h, Keyed, place, replace } from './dom.js';
import { elapsed } from './time.js';

function item(c, s, go) {
  const u = s.unread(c.id);
  const label = (c.type === 'dm' ? '@ ' : '# ') + s.title(c.id);
  const current = c.id === s.current;
  return [JSON.stringify([label, u.unread, u.mentions, current]), () => {
    const badges = [];
    if (u.mentions) badges.push(h('span', { class: 'badge mentions', title: `${u.mentions} mentions` }, '@' + u.mentions));
    if (u.unread) badges.push(h('span', { class: 'badge', title: `${u.unread} unread` }, String(u.unread)));
    const a11y = [label, u.unread ? `${u.unread} unread` : '', u.mentions ? `${u.mentions} mentions` : ''].filter(Boolean).join(', ');
    return h('li', null, h('button', { type: 'button', class: 'chan' + (u.unread ? ' has-unread' : ''), 'data-testid': 'channel-item',
      'data-channel': c.id, 'data-unread': u.unread, 'data-mentions': u.mentions, 'aria-current': String(current), 'aria-label': a11y,
      onclick: () => go(c.id) }, h('span', { class: 'name' }, label), badges));
  }];
}

function joinItem(c, join) {
  const name = c.name || c.id;
  return [name, () => h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'channel-join', 'data-channel': c.id, title: 'Join #' + name,
    onclick: () => join(c.id) }, h('span', { class: 'name dim' }, '# ' + name), h('span', { class: 'dim' }, 'join')))];
}

function agentItem(pk, s, open, now) {
  const w = s.model.live.working(pk, '', now);
  const pending = s.pendingOf(pk).length;
  const name = s.model.names.name(pk);
  const work = w.working ? `working ${elapsed(w.elapsed)}` : '';
  const current = s.pane === 'agent:' + pk;
  return [JSON.stringify([name, pending, work, current]), () => h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'agent-item',
    'data-agent': pk, 'aria-current': String(current), onclick: () => open(pk) },
  h('span', { class: 'name' }, (pending ? '⚠ ' : '') + name),
  work ? h('span', { class: 'working', 'data-testid': 'agent-working', 'data-agent': pk }, work) : null))];
}

/** Sidebar renders session s into el; actions: open(ch), join(ch), openAgent(pk), signOut(). */
export class Sidebar {
  constructor(el, actions) {
    this.el = el;
    this.actions = actions;
    this.keyed = new Keyed();
    const section = (id, title) => {
      const head = h('h3', { id }, title);
      const list = h('ul', { 'aria-labelledby': id });
      return { head, list };
    };
    this.streams = section('side-ch', 'Channels');
    this.dms = section('side-dm', 'Direct messages');
    this.others = section('side-join', 'Other channels');
    this.agents = section('side-ag', 'Your agents');
    this.who = h('strong');
    const foot = h('div', { class: 'foot' }, h('div', { class: 'who' }, 'Signed in as ', this.who),
      h('button', { type: 'button', class: 'link danger', 'data-testid': 'sign-out', onclick: () => actions.signOut() }, 'Sign out and forget this key'));
    replace(el, [this.streams, this.dms, this.others, this.agents].map((x) => [x.head, x.list]), foot);
  }

  fill(sec, entries, prefix) {
    place(sec.list, entries.map(([key, [sig, make]]) => this.keyed.node(prefix + key, sig, make)));
    sec.head.hidden = sec.list.hidden = entries.length === 0 && sec !== this.streams;
  }

  render(s, now) {
    const a = this.actions;
    this.fill(this.streams, s.channels.filter((c) => c.type !== 'dm').map((c) => [c.id, item(c, s, a.open)]), 'c:');
    this.fill(this.dms, s.channels.filter((c) => c.type === 'dm').map((c) => [c.id, item(c, s, a.open)]), 'c:');
    this.fill(this.others, s.others.map((c) => [c.id, joinItem(c, a.join)]), 'j:');
    this.fill(this.agents, s.agents.list().map((pk) => [pk, agentItem(pk, s, a.openAgent, now)]), 'a:');
    this.keyed.sweep();
    const label = s.model.names.label(s.self);
    if (this.who.textContent !== label) replace(this.who, label);
    this.who.parentElement.title = s.self;
  }
}
