// The scrolling list of rows of a channel or a thread. Nodes are kept by id
// and rebuilt only when their row changed (signature), so a live message
// adds one node; it stays at the bottom when it was there, keeps its place
// when older rows arrive above, and pages back when scrolled to the top.
import { h, place } from './dom.js';
import { editBox, messageNode, signature } from './message.js';
import { dayOf, dayTitle } from './time.js';

// GROUP_GAP is how far apart (s) two rows of one author still show under one name.
const GROUP_GAP = 5 * 60;

/** Timeline renders rows into a scrolling element. */
export class Timeline {
  /** ctx: own(pk), name(pk), label(pk), text(row), mentionsMe(row), openThread, react, toggleReaction, edit, remove, older(). */
  constructor(ctx, attrs) {
    this.ctx = { ...ctx, startEdit: (row, node) => this.startEdit(row, node) };
    this.el = h('div', { class: 'timeline', tabindex: '0', ...attrs });
    this.nodes = new Map(); // id -> {sig, node}
    this.key = '';
    this.editing = '';
    this.stuck = true; // the view follows the newest row while the reader is at the bottom
    this.el.addEventListener('scroll', () => {
      const el = this.el;
      this.stuck = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      if (el.scrollTop < 80 && this.canOlder && !this.loading) this.loadOlder();
    });
    // A bar appearing above (an alert) or the keyboard on a phone resizes the view: keep the bottom in view.
    new ResizeObserver(() => this.stuck && (this.el.scrollTop = this.el.scrollHeight)).observe(this.el);
    this.el.addEventListener('keydown', (e) => this.keys(e));
  }

  async loadOlder() {
    this.loading = true;
    try {
      await this.ctx.older?.();
    } finally {
      this.loading = false;
    }
  }

  /** update shows rows; opts: {key (channel or thread), divider, canOlder, inThread, empty}. */
  update(rows, opts) {
    const el = this.el;
    const switched = opts.key !== this.key;
    if (switched) {
      this.key = opts.key;
      this.editing = '';
    }
    const atBottom = switched || this.stuck;
    const anchor = !atBottom && this.firstVisible(); // {id, top}: the row to keep in place

    this.canOlder = opts.canOlder;
    const focused = document.activeElement?.closest?.('[data-testid="message"]');
    const focusedId = focused && el.contains(focused) ? focused.dataset.eventId : '';
    const out = [];
    const marks = new Map(); // separators and buttons, reused by key like the rows
    const mark = (k, make) => {
      const n = this.marks?.get(k) || make();
      marks.set(k, n);
      out.push(n);
    };
    if (opts.canOlder) mark('older', () => h('button', { type: 'button', class: 'older', 'data-testid': 'load-older', onclick: () => this.loadOlder() }, 'Show older messages'));
    else if (!rows.length) mark('empty:' + (opts.empty || ''), () => h('p', { class: 'dim day' }, opts.empty || 'No messages yet.'));
    const keep = new Map();
    let prev = null;
    for (const row of rows) {
      if (!prev || dayOf(prev.created_at) !== dayOf(row.created_at)) {
        mark('day:' + dayOf(row.created_at), () => h('div', { class: 'day', role: 'separator' }, dayTitle(row.created_at)));
        prev = null;
      }
      if (row.id === opts.divider && !opts.inThread) {
        mark('divider', () => h('div', { class: 'divider', 'data-testid': 'new-messages', role: 'separator' }, 'new messages'));
        prev = null;
      }
      const view = this.view(row, prev, opts);
      const sig = signature(row, view);
      let got = this.nodes.get(row.id);
      if (this.editing === row.id && got) {
        // keep the open editor as it is
      } else if (!got || got.sig !== sig) got = { sig, node: messageNode(row, view, this.ctx) };
      keep.set(row.id, got);
      out.push(got.node);
      prev = row;
    }
    this.nodes = keep;
    this.marks = marks;
    place(el, out);
    if (focusedId && !el.contains(document.activeElement)) this.nodes.get(focusedId)?.node.focus(); // a rebuilt row keeps the focus
    if (atBottom) {
      el.scrollTop = el.scrollHeight;
      this.stuck = true;
    } else if (anchor) {
      // by id: the row's node may have been rebuilt (it lost its name line to a row of its author above it)
      const now = this.nodes.get(anchor.id)?.node;
      if (now) el.scrollTop += now.getBoundingClientRect().top - anchor.top;
    }
  }

  view(row, prev, opts) {
    const c = this.ctx;
    const grouped = prev && !prev.system && !row.system && prev.author === row.author && row.created_at - prev.created_at < GROUP_GAP;
    return {
      first: !grouped,
      author: row.system ? 'hive' : c.label(row.author),
      mine: !row.system && c.own(row.author),
      mentionsMe: c.mentionsMe(row),
      inThread: !!opts.inThread,
      text: row.deleted ? '' : c.text(row),
      quote: row.deleted || !row.quote ? null : row.quote,
      mentioned: (row.mentions || []).flatMap((pk) => c.handles(pk)),
    };
  }

  firstVisible() {
    const top = this.el.getBoundingClientRect().top;
    for (const [id, { node }] of this.nodes) {
      const r = node.getBoundingClientRect();
      if (r.bottom > top) return { id, top: r.top };
    }
    return null;
  }

  /** startEdit opens the editor in place of row's text. */
  startEdit(row, node) {
    const body = node.querySelector('.body');
    if (!body || this.editing === row.id) return;
    this.editing = row.id;
    const done = () => {
      this.editing = '';
      this.nodes.delete(row.id); // rebuilt on the next update
      this.ctx.refresh();
      node.focus();
    };
    body.replaceWith(editBox(row, row.text, (t) => this.ctx.edit(row, t), done));
  }

  /** editLast opens the editor on the newest own message (Up in an empty composer). */
  editLast() {
    const own = [...this.nodes.values()].map((n) => n.node).filter((n) => n.querySelector('[data-testid="message-edit"]'));
    own.at(-1)?.querySelector('[data-testid="message-edit"]').click();
    return own.length > 0;
  }

  // keys: Up/Down move between messages, Home/End jump, Enter opens the thread.
  keys(e) {
    if (e.target.closest('textarea, input')) return;
    const msgs = [...this.el.querySelectorAll('[data-testid="message"]')];
    const at = msgs.indexOf(e.target.closest('[data-testid="message"]'));
    let to = -1;
    if (e.key === 'ArrowDown') to = at < 0 ? 0 : Math.min(msgs.length - 1, at + 1);
    else if (e.key === 'ArrowUp') to = at < 0 ? msgs.length - 1 : Math.max(0, at - 1);
    else if (e.key === 'Home') to = 0;
    else if (e.key === 'End') to = msgs.length - 1;
    else if (e.key === 'Enter' && at >= 0 && e.target === msgs[at]) {
      msgs[at].querySelector('[data-testid="thread-open"], [data-testid="thread-replies"]')?.click();
      e.preventDefault();
      return;
    } else return;
    if (to < 0) return;
    e.preventDefault();
    msgs[to].focus();
  }
}
