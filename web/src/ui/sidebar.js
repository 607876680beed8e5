// The sidebar: channels and DMs with unread and mention counts, open
// channels to join, the member's agents with their working signal, and who
// is signed in with the sign-out button. Its nodes are kept between renders
// and rebuilt only when what they show changed, so a click is never lost to
// a live update.
import { h, Keyed, place, replace } from './dom.js';
import { elapsed } from './time.js';

// channelItem is a channel's button, made once and brought up to date in
// place (attributes and text), so the element under a pointer stays the same.
function channelItem(c, s, go, keyed) {
  const u = s.unread(c.id);
  const label = (c.type === 'dm' ? '@ ' : '# ') + s.title(c.id);
  const li = keyed.node('c:' + c.id, '', () => h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'channel-item', 'data-channel': c.id,
    onclick: () => go(c.id) }, h('span', { class: 'name' }), h('span', { class: 'badge mentions' }), h('span', { class: 'badge' }))));
  const [btn] = li.children;
  const [name, mentions, unread] = btn.children;
  const sig = JSON.stringify([label, u.unread, u.mentions, c.id === s.current]);
  if (btn.dataset.sig === sig) return li;
  btn.dataset.sig = sig;
  btn.classList.toggle('has-unread', u.unread > 0);
  btn.dataset.unread = u.unread;
  btn.dataset.mentions = u.mentions;
  btn.setAttribute('aria-current', String(c.id === s.current));
  btn.setAttribute('aria-label', [label, u.unread ? `${u.unread} unread` : '', u.mentions ? `${u.mentions} mentions` : ''].filter(Boolean).join(', '));
  replace(name, label);
  replace(mentions, u.mentions ? '@' + u.mentions : '');
  mentions.hidden = !u.mentions;
  mentions.title = `${u.mentions} mentions`;
  replace(unread, u.unread ? String(u.unread) : '');
  unread.hidden = !u.unread;
  unread.title = `${u.unread} unread`;
  return li;
}

function joinItem(c, join) {
  const name = c.name || c.id;
  return [name, () => h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'channel-join', 'data-channel': c.id, title: 'Join #' + name,
    onclick: () => join(c.id) }, h('span', { class: 'name dim' }, '# ' + name), h('span', { class: 'dim' }, 'join')))];
}

// agentItem is an agent's button (⚠ while a permission request waits, its
// working time), updated in place like channelItem.
function agentItem(pk, s, open, now, keyed) {
  const w = s.model.live.working(pk, '', now);
  const pending = s.pendingOf(pk).length;
  const label = (pending ? '⚠ ' : '') + s.model.names.name(pk);
  const work = w.working ? `working ${elapsed(w.elapsed)}` : '';
  const current = String(s.pane === 'agent:' + pk);
  const li = keyed.node('a:' + pk, '', () => h('li', null, h('button', { type: 'button', class: 'chan', 'data-testid': 'agent-item', 'data-agent': pk,
    onclick: () => open(pk) }, h('span', { class: 'name' }), h('span', { class: 'working', 'data-testid': 'agent-working', 'data-agent': pk }))));
  const [btn] = li.children;
  const [name, working] = btn.children;
  btn.setAttribute('aria-current', current);
  if (name.textContent !== label) replace(name, label);
  if (working.textContent !== work) replace(working, work);
  working.hidden = !work;
  return li;
}

// channelForm is the "new channel" form: name, about, open or private.
// submit({name, about, private}) → Promise<bool> (true: created, the form closes).
function channelForm(submit) {
  const name = h('input', { 'data-testid': 'channel-new-name', placeholder: 'name', 'aria-label': 'new channel name', required: true, maxlength: '64' });
  const about = h('input', { 'data-testid': 'channel-new-about', placeholder: 'about (optional)', 'aria-label': 'what the channel is about' });
  const priv = h('input', { type: 'checkbox', 'data-testid': 'channel-new-private' });
  const form = h('form', { class: 'chan-new', hidden: true, onsubmit: (e) => {
    e.preventDefault();
    const n = name.value.trim();
    if (!n) return;
    Promise.resolve(submit({ name: n, about: about.value.trim(), private: priv.checked })).then((ok) => {
      if (!ok) return;
      name.value = about.value = '';
      priv.checked = false;
      form.hidden = true;
    });
  } }, name, about, h('label', { class: 'check' }, priv, ' private: only members read and write'),
  h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', 'data-testid': 'channel-new-submit' }, 'Create'),
    h('button', { type: 'button', onclick: () => { form.hidden = true; } }, 'Cancel')));
  form.addEventListener('keydown', (e) => e.key === 'Escape' && ((form.hidden = true), e.preventDefault()));
  return { form, focus: () => name.focus() };
}

/** Sidebar renders session s into el; actions: open(ch), join(ch), newDM(who) → Promise<bool>, newChannel({name, about, private}) → Promise<bool>, openAgent(pk), signOut(). */
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
    this.dmInput = h('input', { 'data-testid': 'dm-new-input', placeholder: 'name or npub', 'aria-label': 'start a direct message with' });
    this.dmForm = h('form', { class: 'dm-new', hidden: true, onsubmit: (e) => {
      e.preventDefault();
      const who = this.dmInput.value.trim();
      if (!who) return;
      Promise.resolve(actions.newDM(who)).then((ok) => {
        if (!ok) return;
        this.dmInput.value = '';
        this.dmForm.hidden = true;
      });
    } }, this.dmInput);
    this.dmInput.addEventListener('keydown', (e) => e.key === 'Escape' && ((this.dmForm.hidden = true), e.preventDefault()));
    this.dms.head.append(h('button', { type: 'button', class: 'link add', 'data-testid': 'dm-new', title: 'New direct message', 'aria-label': 'New direct message',
      onclick: () => { this.dmForm.hidden = !this.dmForm.hidden; if (!this.dmForm.hidden) this.dmInput.focus(); } }, '+'));
    this.chanNew = channelForm((c) => actions.newChannel(c));
    this.streams.head.append(h('button', { type: 'button', class: 'link add', 'data-testid': 'channel-new', title: 'New channel', 'aria-label': 'New channel',
      onclick: () => { const f = this.chanNew.form; f.hidden = !f.hidden; if (!f.hidden) this.chanNew.focus(); } }, '+'));
    this.others = section('side-join', 'Other channels');
    this.agents = section('side-ag', 'Your agents');
    this.who = h('strong');
    const foot = h('div', { class: 'foot' }, h('div', { class: 'who' }, 'Signed in as ', this.who),
      h('button', { type: 'button', class: 'link danger', 'data-testid': 'sign-out', onclick: () => actions.signOut() }, 'Sign out and forget this key'));
    replace(el, [this.streams, this.dms, this.others, this.agents].map((x) => [x.head, x === this.dms ? this.dmForm : x === this.streams ? this.chanNew.form : null, x.list]), foot);
  }

  fill(sec, nodes) {
    place(sec.list, nodes);
    sec.head.hidden = sec.list.hidden = nodes.length === 0 && sec !== this.streams && sec !== this.dms;
  }

  keyedAll(entries, prefix) {
    return entries.map(([key, [sig, make]]) => this.keyed.node(prefix + key, sig, make));
  }

  render(s, now) {
    const a = this.actions;
    const chan = (c) => channelItem(c, s, a.open, this.keyed);
    this.fill(this.streams, s.channels.filter((c) => c.type !== 'dm').map(chan));
    this.fill(this.dms, s.channels.filter((c) => c.type === 'dm').map(chan));
    this.fill(this.others, this.keyedAll(s.others.map((c) => [c.id, joinItem(c, a.join)]), 'j:'));
    this.fill(this.agents, s.agents.list().map((pk) => agentItem(pk, s, a.openAgent, now, this.keyed)));
    this.keyed.sweep();
    const label = s.model.names.label(s.self);
    if (this.who.textContent !== label) replace(this.who, label);
    this.who.parentElement.title = s.self;
  }
}
