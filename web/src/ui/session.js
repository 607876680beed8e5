// The session: one signed-in browser talking to its hub. It joins the hub
// connection (web/src/hub), the chat model (web/src/model) and the member's
// read state, and holds what the page shows: the channels with their unread
// counts, the open channel and thread, the agents' transcripts. Views read
// it and call its actions; it calls the listeners after every change.
import { ChatModel, above, mergePositions } from '../model/index.js';
import { Agents } from './agents.js';
import { dividerStays, follow, listChannels, loadNames, loadOlder, loadPage, loadUnread, markRead, Outbox, readMarks, readStates } from '../hub/chat.js';

/** PAGE is how many rows a channel's first page (and each older page) shows. */
export const PAGE = 100;

/** Session is the signed-in state; hub is a started HubConnection. */
export class Session {
  constructor(hub) {
    this.hub = hub;
    this.member = hub.member || hub.pubkey; // a device acts for its owner
    this.self = hub.pubkey;
    this.isDevice = this.member !== this.self;
    this.model = new ChatModel(this.member);
    this.positions = {};
    this.channels = []; // [{id, name, type, visibility, members, role, ...}] the member belongs to
    this.others = []; // open channels the member has not joined
    this.current = '';
    this.thread = '';
    this.pane = ''; // '', 'thread' or 'agent:<pk>'
    this.divider = '';
    this.atStart = new Set(); // channels paged back to their first row
    this.loaded = new Set(); // channels whose newest page is loaded
    this.shown = new Map(); // channel -> how many of its newest top-level rows the timeline shows
    this.listeners = new Set();
    this.conn = { state: hub.state || 'connecting' };
    this.error = '';
    this.agents = new Agents(this);
    this.outbox = new Outbox(hub, this.model, () => this.changed());
    this.unsub = [hub.on('state', (s) => { this.conn = s; this.changed(); })];
  }

  /** onChange registers fn to run after changes (coalesced per frame); returns an off function. */
  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  changed() {
    if (this.pendingFrame || this.closed) return;
    this.pendingFrame = true;
    const run = () => {
      this.pendingFrame = false;
      // a change queued before close() must not redraw a page that has moved on
      if (this.closed) return;
      for (const fn of this.listeners) fn(this);
    };
    if (globalThis.requestAnimationFrame && !document.hidden) requestAnimationFrame(run);
    else setTimeout(run, 0);
  }

  /** fail shows err as the one refusal line. */
  fail(err) {
    this.error = String(err?.reason || err?.message || err);
    this.changed();
  }

  /** start loads channels, read state and names, then follows the joined channels live. */
  async start(want) {
    await this.refreshChannels();
    this.positions = { ...(await readStates(this.hub)) };
    this.follow();
    this.agents.ensure();
    // Unread counts need the rows after each read position, not only the open channel's page.
    await Promise.all(this.channels.map((c) => loadUnread(this.hub, this.model, c.id, this.positions[c.id]).catch(() => {})));
    const first = this.channels.find((c) => c.id === want) || this.channels.find((c) => this.unread(c.id).mentions) || this.channels[0];
    if (first && !this.current) await this.open(first.id); // a channel the person opened meanwhile stays open
    this.changed();
  }

  async refreshChannels() {
    const all = await listChannels(this.hub);
    this.channels = all.filter((c) => c.role && !c.archived).sort(byName);
    this.others = all.filter((c) => !c.role && !c.archived && c.type !== 'dm').sort(byName);
    const pks = new Set();
    for (const c of all) for (const pk of Object.keys(c.members || {})) pks.add(pk);
    await loadNames(this.hub, this.model, [...pks]).catch(() => {});
  }

  follow() {
    this.following?.close();
    this.following = follow(this.hub, this.model, this.channels.map((c) => c.id), {
      onevent: () => {
        this.keepRead();
        this.changed();
      },
      onnames: () => {
        this.agents.ensure();
        this.changed();
      },
      onclosed: (reason) => reason && this.fail(reason),
      onreadstate: (context, at) => this.takePosition(context, at),
      onchannels: () => this.refreshChannels().then(() => { this.follow(); this.changed(); }, (e) => this.fail(e)),
    });
  }

  /** channel returns the channel record of id. */
  channel(id) {
    return this.channels.find((c) => c.id === id) || this.others.find((c) => c.id === id);
  }

  /** title names a channel as the sidebar shows it: #name, or a DM's other members. */
  title(id) {
    const c = this.channel(id);
    if (!c) return id;
    if (c.type !== 'dm') return c.name || id;
    const others = Object.keys(c.members || {}).filter((pk) => !this.model.own(pk));
    return others.map((pk) => this.model.names.name(pk)).join(', ') || 'just you';
  }

  unread(ch) {
    return this.model.unread(ch, this.positions);
  }

  /** open shows channel ch: loads its newest page, puts the divider at the first unread row, marks it read. */
  async open(ch) {
    if (this.current !== ch) {
      this.current = ch;
      if (this.pane === 'thread') this.pane = '';
      this.divider = this.unread(ch).first_unread || '';
      this.changed();
    }
    if (!this.loaded.has(ch)) {
      this.loaded.add(ch);
      const evs = await loadPage(this.hub, this.model, ch, { limit: PAGE });
      if (evs.length < PAGE) this.atStart.add(ch);
      this.divider = this.unread(ch).first_unread || '';
    }
    if (!this.shown.has(ch)) {
      // show from the first unread row on (a little before it), at least a page
      const rows = this.model.main(ch);
      const at = rows.findIndex((r) => r.id === this.divider);
      this.shown.set(ch, Math.max(PAGE, at < 0 ? 0 : rows.length - at + 10));
    }
    this.keepRead();
    this.changed();
  }

  /**
   * visible is what the timeline shows of channel ch: the newest rows up to
   * its window (loaded rows may be more: the unread counts load every row
   * after the read position), and whether older ones exist.
   */
  visible(ch) {
    const rows = this.model.main(ch);
    const n = this.shown.get(ch) || PAGE;
    const pending = this.outbox.rows(ch);
    return { rows: [...(rows.length > n ? rows.slice(-n) : rows), ...pending], more: rows.length > n || !this.atStart.has(ch) };
  }

  /** threadRows is the open thread as shown: its rows, then the member's replies still on their way. */
  threadRows() {
    const root = this.model.row(this.thread);
    return [...this.model.thread(this.thread), ...(root ? this.outbox.rows(root.channel, this.thread) : [])];
  }

  /** older shows a page more of the open channel: loaded rows first, else from the hub; it reports whether rows came. */
  async older() {
    const ch = this.current;
    if (!ch) return false;
    const n = this.shown.get(ch) || PAGE;
    if (this.model.main(ch).length <= n) {
      if (this.atStart.has(ch)) return false;
      const { start } = await loadOlder(this.hub, this.model, ch, PAGE);
      if (start) this.atStart.add(ch);
    }
    this.shown.set(ch, n + PAGE);
    this.changed();
    return true;
  }

  /** openThread shows root's thread in the pane and marks it read. */
  openThread(root) {
    this.thread = root;
    this.pane = 'thread';
    this.keepRead();
    this.changed();
  }

  closePane() {
    this.pane = '';
    this.changed();
  }

  /** keepRead marks what is on screen read (readMarks): the open channel (while the page is seen) and the open thread. */
  keepRead() {
    if (globalThis.document?.hidden) return;
    const marks = readMarks(this.model, this.positions, this.current, this.pane === 'thread' ? this.thread : '');
    for (const [context, at] of Object.entries(marks)) {
      this.positions[context] = at; // merged with the member's already
      markRead(this.hub, context, at).catch((e) => this.fail(e));
    }
  }

  /**
   * takePosition takes a read position of one of the member's keys, merged
   * with the member's; one of the open channel that passes the divider row
   * (read on another device) drops the divider.
   */
  takePosition(context, at) {
    const merged = mergePositions(this.positions[context], at);
    if (!above(merged, this.positions[context])) return;
    this.positions[context] = merged;
    if (context === this.current && !dividerStays(this.model, this.positions, this.current, this.divider)) this.divider = '';
    this.changed();
  }

  /** act runs a publishing action, showing its refusal as the error line. */
  async act(fn) {
    try {
      this.error = '';
      const out = await fn(this.hub, this.model);
      this.changed();
      return out;
    } catch (e) {
      this.fail(e);
      throw e;
    }
  }

  /** queue sends the message make() returns through the outbox: it resolves once signed and queued; the row shows "sending…" until the hub's OK. */
  async queue(make) {
    this.error = '';
    try {
      return await this.outbox.send(make());
    } catch (e) {
      this.fail(e);
      throw e;
    }
  }

  /** pendingOf is agent's permission requests waiting for the member's answer. */
  pendingOf(pk) {
    return this.agents.pendingOf(pk);
  }

  close() {
    this.closed = true;
    this.listeners.clear();
    this.agents.close();
    this.outbox.close();
    this.following?.close();
    for (const off of this.unsub) off?.();
    this.hub.close();
  }
}

// byName sorts channels before DMs, each by name.
function byName(a, b) {
  return (a.type === 'dm') - (b.type === 'dm') || (a.name || a.id).localeCompare(b.name || b.id);
}
