// What the chat model shows: rows with their overlays applied, timelines,
// threads, paging cursors, unread counts and row text (mixed into ChatModel).
import { KIND, isContentKind, threadContext } from './kinds.js'
import { keyLess } from './sorted.js'
import { covers, position, readThrough, since } from './position.js'
import { dropRefs, quoteView } from './quote.js'

// view is r as a person sees it (the row shape of spec/fixtures).
function view (m, r) {
  const out = {
    id: r.id,
    channel: r.channel,
    author: r.author,
    created_at: r.created,
    kind: r.kind,
    text: r.text,
    system: r.kind === KIND.SystemRow,
    edited: false,
    edited_at: 0,
    deleted: false,
    root: r.root,
    reply_to: r.parent,
    mentions: r.mentions,
    reactions: [],
    receipts: [],
    replies: 0,
    last_reply: 0,
    quote: null
  }
  if (m.gone.has(r.id)) {
    out.deleted = true
    out.text = ''
    out.mentions = []
  } else {
    out.quote = quoteView(m, r)
    if (r.approval) out.approval = { ...r.approval }
  }
  let edit = null
  const rxs = [] // {emoji, who, first} in first-seen order
  const receipts = new Map() // agent -> its newest receipt
  let run = null // the card's newest run record by its author
  for (const o of m.byTarget.get(r.id) || []) {
    if (m.gone.has(o.id)) continue
    if (o.kind === KIND.RunRecord) {
      if (o.author === r.author && o.run.status !== 'ignored' && (!run || keyLess(run.k, o.k))) run = o
      continue
    }
    if (o.kind === KIND.Receipt) {
      const prev = receipts.get(o.author)
      if (!prev || keyLess(prev.k, o.k)) receipts.set(o.author, o)
      continue
    }
    if (o.kind === KIND.Edit) {
      if (!edit || keyLess(edit.k, o.k)) edit = o
      continue
    }
    let x = rxs.find(x => x.emoji === o.text)
    if (!x) { x = { emoji: o.text, who: [], first: o.k }; rxs.push(x) }
    if (keyLess(o.k, x.first)) x.first = o.k
    if (!x.who.includes(o.author)) x.who.push(o.author)
  }
  if (edit && !out.deleted) {
    out.text = edit.text
    out.edited = true
    out.edited_at = edit.created
  }
  if (!out.deleted && rxs.length) {
    // a stable sort by the first reaction's key, as client/chat's
    out.reactions = rxs
      .map((x, i) => ({ x, i }))
      .sort((a, b) => (keyLess(a.x.first, b.x.first) ? -1 : keyLess(b.x.first, a.x.first) ? 1 : a.i - b.i))
      .map(({ x }) => ({ emoji: x.emoji, count: x.who.length, who: [...x.who].sort() }))
  }
  if (!out.deleted && receipts.size) {
    out.receipts = [...receipts.values()]
      .sort((a, b) => (a.author < b.author ? -1 : a.author > b.author ? 1 : 0))
      .map(o => {
        const rc = { agent: o.author, status: o.status, at: o.created }
        if (o.text) rc.reason = o.text
        return rc
      })
  }
  if (!out.deleted && run) out.run = { ...run.run }
  if (!r.root) {
    const [n, last] = replyStats(m, r.id)
    out.replies = n
    out.last_reply = last
  }
  return out
}

function replyStats (m, root) {
  let n = 0
  let last = 0
  for (const r of m.threads.get(root) || []) {
    if (!m.gone.has(r.id)) {
      n++
      last = Math.max(last, r.created)
    }
  }
  return [n, last]
}

function visible (m, r) {
  if (!m.gone.has(r.id)) return true
  if (r.root) return false
  return replyStats(m, r.id)[0] > 0
}

/** timeline is channel's visible rows in order, replies included. */
export function timeline (channel) {
  return (this.chans.get(channel) || []).filter(r => visible(this, r)).map(r => view(this, r))
}

/** main is channel's visible top-level rows in order (threads folded into their roots). */
export function main (channel) {
  return (this.chans.get(channel) || []).filter(r => !r.root && visible(this, r)).map(r => view(this, r))
}

/** thread is the thread of root: the root (a tombstone when deleted, left out while not loaded), then its visible replies. */
export function thread (root) {
  const out = []
  const r = this.rows.get(root)
  if (r && visible(this, r)) out.push(view(this, r))
  for (const x of this.threads.get(root) || []) if (!this.gone.has(x.id)) out.push(view(this, x))
  return out
}

/** row is one loaded row as shown, deleted or not; undefined when not loaded. */
export function row (id) {
  const r = this.rows.get(id)
  return r ? view(this, r) : undefined
}

/** channels lists the channels that have loaded rows, sorted. */
export function channels () { return [...this.chans.keys()].sort() }

/** len is how many rows of channel are loaded, deleted ones included. */
export function len (channel) { return (this.chans.get(channel) || []).length }

/** oldest is the oldest loaded row of channel ({id, at}) or null: the cursor for paging back. */
export function oldest (channel) {
  const ch = this.chans.get(channel)
  if (!ch || !ch.length) return null
  let o = ch[0]
  for (const r of ch) if (r.created < o.created) o = r // a reply moved after its question can be older
  return { id: o.id, at: o.created }
}

/** newest is the created_at of the newest loaded row of channel, deleted or not (0 when none). */
export function newest (channel) {
  const ch = this.chans.get(channel)
  if (!ch || !ch.length) return 0
  let at = 0
  for (let i = ch.length - 1; i >= 0; i--) {
    at = Math.max(at, ch[i].created)
    if (ch[i].k.t < at * 1000) break
  }
  return at
}

function pos (positions, context) {
  if (!positions) return position(0)
  if (typeof positions.readUpTo === 'function') return position(positions.readUpTo(context))
  if (positions instanceof Map) return position(positions.get(context))
  return position(positions[context])
}

// mayBeUnread: a content kind, visible, not the member's own.
function mayBeUnread (m, r) {
  return isContentKind(r.kind) && !m.gone.has(r.id) && !m.own(r.author)
}

function isUnread (m, r, chPos, positions) {
  if (!mayBeUnread(m, r) || covers(chPos, r.created, r.id)) return false
  return !r.root || !covers(pos(positions, threadContext(r.root)), r.created, r.id)
}

function count (m, rows, chPos, positions, more) {
  const u = { unread: 0, mentions: 0, first_unread: '' }
  for (let i = rows.length - 1; i >= 0 && more(rows[i]); i--) {
    const r = rows[i]
    if (isUnread(m, r, chPos, positions)) {
      u.unread++
      if (r.mentions.includes(m.me)) u.mentions++
      u.first_unread = r.id
    }
  }
  return u
}

/**
 * unread counts channel's unread rows (replies included) and mentions with
 * the read positions (an object or Map context → position: unix s or
 * {at, ids}, see position.js): {unread, mentions, first_unread}.
 */
export function unread (channel, positions) {
  const ch = this.chans.get(channel)
  if (!ch) return { unread: 0, mentions: 0, first_unread: '' }
  const p = pos(positions, channel)
  const floor = since(p) * 1000 // rows placed before it are all read
  return count(this, ch, p, positions, r => r.k.t >= floor)
}

// seenAt is the position at second at naming the rows of rows in that
// second that may be unread (a row sits at or after its second).
function seenAt (m, rows, at) {
  if (!at) return position(0)
  const ids = []
  for (let i = rows.length - 1; i >= 0 && rows[i].k.t >= at * 1000; i--) {
    if (rows[i].created === at && mayBeUnread(m, rows[i])) ids.push(rows[i].id)
  }
  return readThrough(at, ids)
}

/** seen is the position that reads every loaded row of channel (client/chat Model.Seen): its newest second with that second's rows that may be unread. */
export function seen (channel) {
  return seenAt(this, this.chans.get(channel) || [], this.newest(channel))
}

/** threadSeen is the position that reads every loaded reply of root's thread, as seen. */
export function threadSeen (root) {
  const th = this.threads.get(root) || []
  return seenAt(this, th, th.reduce((m, r) => Math.max(m, r.created), 0))
}

/** threadUnread counts the unread replies of root's thread. */
export function threadUnread (root, positions) {
  const th = this.threads.get(root)
  if (!th || !th.length) return { unread: 0, mentions: 0, first_unread: '' }
  return count(this, th, pos(positions, th[0].channel), positions, () => true)
}

const SYSTEM_WORDS = {
  channel_created: (a) => `${a} created the channel`,
  channel_archived: (a) => `${a} archived the channel`,
  member_added: (a, t) => `${a} added ${t}`,
  member_joined: (a, t) => `${t} joined`,
  member_removed: (a, t) => `${a} removed ${t}`,
  member_left: (a, t) => `${t} left`
}

/** text is what a row says to a person: mentions as @name, event references dropped (the quote shows its own); a system row in words; '' for a tombstone. */
export function text (r) {
  if (!r.system) return this.names.render(dropRefs(r.text), r.mentions)
  let body
  try { body = JSON.parse(r.text) } catch { return r.text }
  const get = name => {
    let v = ''
    if (body && typeof body === 'object') for (const [k, x] of Object.entries(body)) if (k.toLowerCase() === name && typeof x === 'string') v = x
    return v
  }
  const type = get('type')
  if (!type) return r.text
  const actor = this.names.name(get('actor'))
  const target = get('target') ? this.names.name(get('target')) : ''
  const w = SYSTEM_WORDS[type]
  return w ? w(actor, target) : `${type}: ${actor} ${target}`
}
