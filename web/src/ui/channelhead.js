// The open channel's head: what it is about, who is in it, and what the
// member may do there: join an open channel, add a member (the channel's
// owners and admins, by name or npub), leave (asked twice); a DM has no
// head. Its nodes are made once and brought up to date, so a click is
// never lost to a render.
import { h, replace } from './dom.js';

const MANAGERS = ['owner', 'admin'];

/** ChannelHead renders a channel's head; actions: join(id), leave(id), add(id, who) → Promise<bool>. */
export class ChannelHead {
  constructor(actions) {
    this.actions = actions;
    this.id = '';
    this.about = h('span', { class: 'about', 'data-testid': 'channel-about' });
    this.count = h('span', { class: 'dim', 'data-testid': 'channel-members' });
    this.join = h('button', { type: 'button', class: 'primary', 'data-testid': 'channel-join-open', onclick: () => actions.join(this.id) }, 'Join');
    this.addOpen = h('button', { type: 'button', 'data-testid': 'member-add', 'aria-expanded': 'false', onclick: () => this.toggleAdd() }, 'Add member');
    this.leave = h('button', { type: 'button', class: 'danger', 'data-testid': 'channel-leave', onclick: () => this.askLeave() }, 'Leave');
    this.leaveYes = h('button', { type: 'button', class: 'danger', 'data-testid': 'channel-leave-confirm', onclick: () => { this.leaving(false); actions.leave(this.id); } }, 'Leave');
    this.leaveNo = h('button', { type: 'button', onclick: () => this.leaving(false) }, 'Stay');
    this.leaveAsk = h('span', { class: 'ask', hidden: true }, h('span', { class: 'q' }), this.leaveYes, this.leaveNo);
    this.who = h('input', { 'data-testid': 'member-add-input', placeholder: 'name or npub', 'aria-label': 'add to the channel' });
    this.addForm = h('form', { class: 'member-new', hidden: true, onsubmit: (e) => this.submitAdd(e) }, this.who,
      h('button', { type: 'submit', 'data-testid': 'member-add-submit' }, 'Add'));
    this.who.addEventListener('keydown', (e) => e.key === 'Escape' && (e.preventDefault(), this.toggleAdd(false)));
    this.el = h('div', { class: 'chan-head', 'data-testid': 'channel-head', hidden: true },
      h('div', { class: 'row' }, this.about, this.count, h('span', { class: 'tools' }, this.join, this.addOpen, this.leave, this.leaveAsk)), this.addForm);
  }

  /** render shows channel c (or hides the head for none); joined: the member is in it; role: the member's. */
  render(c, joined, role, title) {
    this.el.hidden = !c || c.type === 'dm'; // a DM's title says who is in it; it has nothing to manage
    if (this.el.hidden) return;
    if (c.id !== this.id) {
      this.id = c.id;
      this.leaving(false);
      this.toggleAdd(false);
    }
    const about = c.about || '';
    if (this.about.textContent !== about) replace(this.about, about);
    const n = Object.keys(c.members || {}).length;
    const count = `${n} ${n === 1 ? 'member' : 'members'}${c.visibility === 'private' ? ' · private' : ''}`;
    if (this.count.textContent !== count) replace(this.count, count);
    this.join.hidden = joined || c.visibility === 'private';
    this.addOpen.hidden = !joined || !MANAGERS.includes(role);
    if (this.addOpen.hidden) this.toggleAdd(false);
    this.leave.hidden = !joined || !this.leaveAsk.hidden;
    this.leaveAsk.firstChild.textContent = `Leave #${title}?` + (c.visibility === 'private' ? ' Only a member can add you back.' : '');
  }

  leaving(on) {
    this.leaveAsk.hidden = !on;
    this.leave.hidden = on;
    if (on) this.leaveNo.focus();
  }

  askLeave() { this.leaving(true); }

  toggleAdd(on = this.addForm.hidden) {
    this.addForm.hidden = !on;
    this.addOpen.setAttribute('aria-expanded', String(on));
    if (on) this.who.focus();
  }

  submitAdd(e) {
    e.preventDefault();
    const who = this.who.value.trim();
    if (!who) return;
    Promise.resolve(this.actions.add(this.id, who)).then((ok) => {
      if (!ok) return;
      this.who.value = '';
      this.toggleAdd(false);
    });
  }
}
