// The chat screen: sidebar, the open channel (timeline, who is typing or
// working, composer) and the side pane (a thread or an agent's transcript).
// It renders from the Session after each change.
import { addMember, channelCreateEvent, channelIDFor, deleteMessage, dmChannelID, dmCreateEvent, editMessage, joinChannel, leaveChannel, mentionsIn, messageEvent, ownReaction, react, replyEvent, sendTyping, unreact } from '../hub/chat.js';
import { decodeNpub } from '../keys/index.js';
import { AgentPane, renderAlerts } from './agent.js';
import { ChannelHead } from './channelhead.js';
import { Composer } from './composer.js';
import { h, Keyed, replace } from './dom.js';
import { Sidebar } from './sidebar.js';
import { elapsed } from './time.js';
import { Timeline } from './timeline.js';

/** ChatView shows session s in frame ({title, alerts, screen, menu}); signOut() ends the session. */
export class ChatView {
  constructor(s, frame, signOut) {
    this.s = s;
    this.frame = frame;
    this.signOut = signOut;
    const ctx = this.timelineCtx();
    this.main = new Timeline({ ...ctx, older: () => s.older() }, { 'data-testid': 'timeline', 'aria-label': 'messages' });
    this.threadLine = new Timeline(ctx, { 'data-testid': 'thread-timeline', 'aria-label': 'thread' });
    const typing = () => this.typing();
    this.composer = new Composer({ complete: (p) => s.model.names.complete(p), send: (t, m) => this.send(t, m), editLast: () => this.main.editLast(), typing });
    this.replyBox = new Composer({ placeholder: 'Reply in thread', complete: (p) => s.model.names.complete(p), send: (t, m) => this.reply(t, m), editLast: () => this.threadLine.editLast(), typing });
    this.seen = () => !document.hidden && s.keepRead();
    document.addEventListener('visibilitychange', this.seen);
    this.side = h('nav', { class: 'sidebar', 'aria-label': 'channels' });
    this.sidebar = new Sidebar(this.side, {
      open: (id) => { this.root.classList.remove('nav-open'); this.go(id); },
      join: (id) => this.join(id),
      newChannel: (c) => this.newChannel(c),
      openAgent: (pk) => { this.root.classList.remove('nav-open'); s.pane = 'agent:' + pk; s.changed(); },
      newDM: (who) => this.newDM(who),
      signOut: () => this.signOut(),
    });
    this.alertNodes = new Keyed();
    this.agentPane = new AgentPane(() => this.closePane(), (e) => s.fail(e));
    this.live = h('div', { class: 'typing', 'data-testid': 'typing', 'aria-live': 'polite' });
    this.head = new ChannelHead({ join: (id) => this.join(id), leave: (id) => this.leave(id), add: (id, who) => this.addMember(id, who) });
    this.channelEl = h('section', { class: 'channel', 'aria-label': 'channel' }, this.head.el, this.main.el, this.live, this.composer.el);
    this.pane = h('aside', { class: 'pane', hidden: true });
    this.threadPane = h('div', { class: 'pane-body', 'data-testid': 'thread-pane' });
    this.root = h('main', { class: 'chat' }, this.side, this.channelEl, this.pane);
    replace(frame.screen, this.root);
    frame.menu.hidden = false;
    frame.menu.onclick = () => this.root.classList.toggle('nav-open');
    this.keys = (e) => this.keydown(e);
    document.addEventListener('keydown', this.keys);
    this.off = s.onChange(() => this.render());
    this.tick = setInterval(() => this.anyLive() && this.render(), 1000);
    this.wantFocus = true; // the composer takes the focus once the channel shows
    this.render();
  }

  timelineCtx() {
    const s = this.s;
    const names = s.model.names;
    return {
      own: (pk) => s.model.own(pk),
      name: (pk) => names.name(pk),
      label: (pk) => names.label(pk),
      // the words an @mention of pk may be written as (its name and display name, as completion inserts them)
      handles: (pk) => {
        const p = names.byKey.get(pk);
        return [p?.name, p?.display, names.own(pk)].filter(Boolean).map((n) => n.replace(/\s+/g, '_'));
      },
      text: (row) => s.model.text(row),
      mentionName: (npub) => {
        try {
          return names.name(decodeNpub(npub));
        } catch {
          return npub.slice(0, 12) + '…';
        }
      },
      mentionsMe: (row) => !row.system && (row.mentions || []).includes(s.member) && !s.model.own(row.author),
      openThread: (id) => {
        this.focusReply = true;
        s.openThread(id);
      },
      react: (row, emoji) => s.act((hub) => react(hub, row, emoji)).catch(() => {}),
      toggleReaction: (row, emoji, mine) => {
        const id = mine && ownReaction(s.model, row.id, emoji);
        s.act((hub) => (id ? unreact(hub, id) : react(hub, row, emoji))).catch(() => {});
      },
      edit: (row, text) => s.act((hub) => editMessage(hub, row, text)).catch(() => {}),
      remove: (row) => s.act((hub) => deleteMessage(hub, row)).catch(() => {}),
      retry: (row) => s.outbox.retry(row.id),
      discard: (row) => (row.root ? this.replyBox : this.composer).restore(s.outbox.discard(row.id)),
      refresh: () => this.render(),
    };
  }

  /** memberKey is the hex key of who (a name or an npub), or '' after showing why there is none. */
  memberKey(who) {
    const s = this.s;
    let pks;
    try {
      pks = who.startsWith('npub1') ? [decodeNpub(who)] : s.model.names.lookup(who);
    } catch (e) {
      s.fail(e);
      return '';
    }
    if (pks.length !== 1) {
      s.fail(pks.length ? `"${who}" may mean ${pks.map((pk) => s.model.names.label(pk)).join(', ')}: give the npub` : `no member is named "${who}"`);
      return '';
    }
    return pks[0];
  }

  // changedChannels reloads the member's channels after a change it made and follows them.
  async changedChannels() {
    await this.s.refreshChannels();
    this.s.follow();
  }

  /** join joins the open channel id and opens it. */
  async join(id) {
    try {
      await this.s.act((hub) => joinChannel(hub, id));
      await this.changedChannels();
      this.go(id);
    } catch { /* shown as the refusal line */ }
  }

  /** newChannel creates a stream channel ({name, about, private}) and opens it; it reports whether it did. */
  async newChannel(c) {
    const id = channelIDFor(c.name);
    try {
      await this.s.act((hub) => hub.publish(channelCreateEvent(id, c.name, c.about, c.private ? 'private' : 'open')));
      await this.changedChannels();
    } catch {
      return false;
    }
    this.root.classList.remove('nav-open');
    this.go(id);
    return true;
  }

  /** leave leaves channel id and opens another of the member's channels. */
  async leave(id) {
    const s = this.s;
    try {
      await s.act((hub) => leaveChannel(hub, id));
      await this.changedChannels();
    } catch {
      return;
    }
    if (s.current !== id) return;
    const next = s.channels[0];
    if (next) this.go(next.id);
    else {
      s.current = '';
      history.replaceState(null, '', '#');
      s.changed();
    }
  }

  /** addMember adds who (a name or an npub) to channel id; it reports whether it did. */
  async addMember(id, who) {
    const pk = this.memberKey(who);
    if (!pk) return false;
    try {
      await this.s.act((hub) => addMember(hub, id, pk));
      await this.changedChannels();
      return true;
    } catch {
      return false;
    }
  }

  /** newDM opens the DM with who (a name or an npub), creating it first; it reports whether it did. */
  async newDM(who) {
    const s = this.s;
    const pk = this.memberKey(who);
    if (!pk) return false;
    const id = dmChannelID(s.member, pk);
    if (!s.channels.some((c) => c.id === id)) {
      const others = [pk, ...(s.isDevice ? [s.member] : [])]; // a device creates it for its owner too
      try {
        await s.act((hub) => hub.publish(dmCreateEvent(id, ...others)));
        await s.refreshChannels();
        s.follow();
      } catch {
        return false;
      }
    }
    this.root.classList.remove('nav-open');
    this.go(id);
    return true;
  }

  mentions(text, picked) {
    const all = new Set(picked);
    for (const pk of mentionsIn(this.s.model.names, text)) all.add(pk);
    return [...all];
  }

  send(text, picked) {
    const ch = this.s.current;
    return this.s.queue(() => messageEvent(ch, text, this.mentions(text, picked)));
  }

  reply(text, picked) {
    const root = this.s.model.row(this.s.thread);
    if (!root) return Promise.reject(new Error('the thread is not loaded'));
    return this.s.queue(() => replyEvent(root, text, this.mentions(text, picked)));
  }

  // typing tells the channel the member is typing, at most every 3 s (it holds 8 s).
  typing() {
    const now = Date.now();
    if (now - (this.typedAt || 0) < 3000 || !this.s.current) return;
    this.typedAt = now;
    sendTyping(this.s.hub, this.s.current).catch(() => {}); // a lost typing signal is harmless
  }

  anyLive() {
    const s = this.s;
    return s.agents.list().some((pk) => s.model.live.working(pk, '', Date.now()).working) || s.model.live.typing(s.current, Date.now()).length > 0;
  }

  // liveLine says who is typing or working in the open channel.
  liveLine(now) {
    const s = this.s;
    const c = s.channel(s.current);
    const out = [];
    for (const pk of Object.keys(c?.members || {})) {
      if (!s.model.names.isAgent(pk)) continue;
      const w = s.model.live.working(pk, s.current, now);
      if (w.working) out.push(h('span', { 'data-testid': 'agent-working', 'data-agent': pk, 'data-source': w.source }, `${s.model.names.name(pk)} is working · ${elapsed(w.elapsed)}`, ' '));
    }
    const typing = s.model.live.typing(s.current, now).filter((pk) => !s.model.own(pk) && !out.some((n) => n.dataset.agent === pk));
    if (typing.length) out.push(`${typing.map((pk) => s.model.names.name(pk)).join(', ')} ${typing.length > 1 ? 'are' : 'is'} typing…`);
    return out;
  }

  render() {
    const s = this.s;
    const now = Date.now();
    const ch = s.current;
    const c = s.channel(ch);
    replace(this.frame.title, c ? (c.type === 'dm' ? '@ ' : '# ') + s.title(ch) : 'hive');
    document.title = c ? `${s.title(ch)} · hive` : 'hive';
    this.sidebar.render(s, now);
    renderAlerts(this.frame.alerts, this.alertNodes, s.agents.pending(), (p, opt) => {
      const a = s.agents.pending().find((x) => x.p === p);
      return a && s.agents.answer(a.agent, p, opt).catch((e) => s.fail(e));
    });
    const joined = s.channels.some((x) => x.id === ch);
    const view = ch ? s.visible(ch) : { rows: [], more: false };
    this.main.update(view.rows, { key: ch, divider: s.divider, canOlder: view.more,
      empty: ch ? 'No messages yet. Say hello!' : 'Join or create a channel to start.' });
    this.composer.el.hidden = !joined;
    this.head.render(c, joined, c?.role || '', c ? s.title(ch) : '');
    if (this.wantFocus && joined) {
      this.wantFocus = false;
      this.composer.focus();
    }
    this.composer.setPlaceholder(c ? `Message ${c.type === 'dm' ? '' : '#'}${s.title(ch)}` : 'Message');
    replace(this.live, this.liveLine(now));
    this.renderPane();
  }

  renderPane() {
    const s = this.s;
    const withPane = s.pane !== '';
    this.root.classList.toggle('with-pane', withPane);
    this.pane.hidden = !withPane;
    if (s.pane === 'thread') {
      const rows = s.threadRows();
      if (this.pane.firstChild !== this.threadPane) replace(this.pane, this.threadPane);
      if (!this.threadPane.firstChild) {
        this.threadPane.append(h('div', { class: 'pane-head' }, h('h2', null, 'Thread'),
          h('button', { type: 'button', class: 'link', 'aria-label': 'close thread', 'data-testid': 'pane-close', onclick: () => this.closePane() }, '✕')),
        this.threadLine.el, this.replyBox.el);
      }
      this.threadLine.update(rows, { key: 'thread:' + s.thread, inThread: true, empty: 'This thread is not loaded.' });
      if (this.focusReply) this.replyBox.focus();
      this.focusReply = false;
    } else if (s.pane.startsWith('agent:')) {
      const pk = s.pane.slice(6);
      const w = s.agents.watcher(pk);
      if (!w) return replace(this.pane, h('p', { class: 'dim' }, 'Not watching this agent.'));
      if (this.pane.firstChild !== this.agentPane.el) replace(this.pane, this.agentPane.el);
      this.agentPane.show(s.model.names.name(pk), w);
    }
  }

  closePane() {
    this.s.closePane();
    this.composer.focus();
  }

  go(id) {
    history.replaceState(null, '', '#/c/' + encodeURIComponent(id));
    this.wantFocus = true;
    this.s.open(id).catch((e) => this.s.fail(e));
  }

  // Keys anywhere: Alt-Up/Down previous/next channel, Alt-Shift-Down next unread, Esc closes the pane or the menu.
  keydown(e) {
    const s = this.s;
    if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
      e.preventDefault();
      const list = s.channels;
      if (!list.length) return;
      const at = list.findIndex((c) => c.id === s.current);
      if (e.shiftKey) {
        const next = list.find((c) => c.id !== s.current && s.unread(c.id).mentions) || list.find((c) => c.id !== s.current && s.unread(c.id).unread);
        if (next) this.go(next.id);
        return;
      }
      const step = e.key === 'ArrowDown' ? 1 : list.length - 1;
      this.go(list[(at + step) % list.length].id);
    } else if (e.key === 'Escape' && !e.defaultPrevented) {
      if (this.root.classList.contains('nav-open')) this.root.classList.remove('nav-open');
      else if (s.pane) this.closePane();
    }
  }

  destroy() {
    this.off();
    clearInterval(this.tick);
    document.removeEventListener('keydown', this.keys);
    document.removeEventListener('visibilitychange', this.seen);
    this.frame.menu.hidden = true;
  }
}
