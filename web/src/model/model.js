// The chat model (spec/chat.md): events applied one at a time, in any order
// and more than once, become what a person sees. A port of client/chat; the
// fixtures in spec/fixtures pin both down.
import { KIND, RECEIPT_STATUSES, RUN_STATUSES, channelOf, isOverlayKind, isRowKind, lastTagValue, millis, replyTo, threadRoot } from './kinds.js'
import { insert, remove } from './sorted.js'
import { Names } from './names.js'
import { Live } from './live.js'
import * as views from './views.js'
import { quoteOf } from './quote.js'

/** ChatModel is the chat state of one member (for a paired device: its owner). */
export class ChatModel {
  constructor (me) {
    this.me = me
    this.now = () => Date.now()
    this.rows = new Map() // id -> row
    this.chans = new Map() // channel -> sorted rows
    this.threads = new Map() // root -> sorted replies
    this.kids = new Map() // id -> rows that answer it
    this.overlays = new Map() // id -> overlay
    this.byTarget = new Map() // target id -> overlays
    this.gone = new Set() // ids deleted by 5 or 9005
    this.held = new Map() // id not loaded yet -> the signers of kind 5s naming it
    this.quoted = new Map() // messages loaded only as what rows quote (applyQuoted), not rows
    this.names = new Names()
    this.live = new Live()
  }

  /**
   * applyQuoted keeps a message rows quote without making it a row (another
   * channel's, an older page's): the quotes naming it show its author and
   * first line. A row of the same id takes its place.
   */
  applyQuoted (ev) {
    if (!isRowKind(ev.kind) || !ev.id) return
    this.quoted.set(ev.id, newRow(ev))
  }

  /** missingQuotes lists the messages the rows of evs quote that are loaded neither as rows nor by applyQuoted, each once, at most max. */
  missingQuotes (evs, max) {
    const out = []
    for (const ev of evs) {
      const r = this.rows.get(ev.id)
      if (!r || !r.quote || this.rows.has(r.quote) || this.quoted.has(r.quote) || out.includes(r.quote)) continue
      out.push(r.quote)
      if (out.length === max) break
    }
    return out
  }

  /** setClock replaces the clock (ms) that presence and typing expire by. */
  setClock (now) { this.now = now }

  /**
   * apply applies one event and returns what it changed:
   * [{op, channel, id, loaded}], op ∈ added, edited, deleted, reacted, receipt, named, live, ignored.
   */
  apply (ev) {
    if (ev.kind === KIND.Profile) {
      if (this.names.apply(ev)) return [{ op: 'named', channel: '', id: ev.pubkey, loaded: false }]
    } else if (ev.kind === KIND.Presence || ev.kind === KIND.Typing) {
      if (this.live.apply(ev, this.now())) return [{ op: 'live', channel: channelOf(ev), id: ev.pubkey, loaded: false }]
    } else if (isRowKind(ev.kind)) {
      return this.addRow(ev)
    } else if (ev.kind === KIND.Edit || ev.kind === KIND.Reaction || ev.kind === KIND.Receipt || ev.kind === KIND.RunRecord) {
      return this.addOverlay(ev)
    } else if (ev.kind === KIND.DeleteInChannel || ev.kind === KIND.Deletion) {
      return this.deleteTargets(ev)
    }
    return [ignored(ev)]
  }

  /** applyAll applies events in the order given. */
  applyAll (evs) { for (const ev of evs) this.apply(ev) }

  change (op, id, channel) {
    const r = this.rows.get(id)
    return r ? { op, channel: r.channel, id, loaded: true } : { op, channel, id, loaded: false }
  }

  addRow (ev) {
    if (!ev.id || this.rows.has(ev.id)) return [ignored(ev)]
    const r = newRow(ev)
    this.rows.set(r.id, r)
    this.judgeHeld(r.id, r.author)
    if (r.parent) push(this.kids, r.parent, r)
    r.k = this.keyOf(r)
    this.place(r)
    for (const kid of this.kids.get(r.id) || []) this.rekey(kid)
    this.live.sent(r.channel, r.author, r.created * 1000)
    return [this.change('added', r.id, r.channel)]
  }

  // keyOf is r's place: its own time, or just after the message it answers.
  keyOf (r) {
    const k = { t: r.own, id: r.id }
    const p = this.rows.get(r.parent)
    if (p && p.k.t >= k.t) k.t = p.k.t + 1
    return k
  }

  place (r) {
    let ch = this.chans.get(r.channel)
    if (!ch) { ch = []; this.chans.set(r.channel, ch) }
    insert(ch, r)
    if (r.root) {
      let th = this.threads.get(r.root)
      if (!th) { th = []; this.threads.set(r.root, th) }
      insert(th, r)
    }
  }

  unplace (r) {
    remove(this.chans.get(r.channel), r)
    if (r.root) remove(this.threads.get(r.root), r)
  }

  rekey (r) {
    const k = this.keyOf(r)
    if (k.t === r.k.t && k.id === r.k.id) return
    this.unplace(r)
    r.k = k
    this.place(r)
    for (const kid of this.kids.get(r.id) || []) this.rekey(kid)
  }

  addOverlay (ev) {
    const target = lastTagValue(ev, 'e')
    if (!ev.id || !target || this.overlays.has(ev.id)) return [ignored(ev)]
    const o = { id: ev.id, author: ev.pubkey, target, kind: ev.kind, k: { t: millis(ev), id: ev.id }, created: ev.created_at, text: ev.content || '' }
    const op = overlayOp(ev.kind)
    if (ev.kind === KIND.Reaction && o.text === '') o.text = '+'
    if (ev.kind === KIND.Receipt) {
      o.status = firstTagValue(ev, 'status')
      if (!RECEIPT_STATUSES.includes(o.status)) return [ignored(ev)]
    }
    if (ev.kind === KIND.RunRecord) {
      o.run = runBadge(ev)
      if (!RUN_STATUSES.includes(o.run.status)) return [ignored(ev)]
    }
    this.overlays.set(o.id, o)
    this.judgeHeld(o.id, o.author)
    push(this.byTarget, target, o)
    return [this.change(op, target, channelOf(ev))]
  }

  // deleteTargets applies a 9005 (its one e tag; the hub has checked that its
  // signer may delete there) or a kind 5 (each e tag, only what its own
  // signer wrote: see retracts).
  deleteTargets (ev) {
    let ids = []
    if (ev.kind === KIND.DeleteInChannel) {
      const t = lastTagValue(ev, 'e')
      if (t) ids = [t]
    } else {
      ids = (ev.tags || []).filter(t => t.length >= 2 && t[0] === 'e').map(t => t[1])
    }
    const out = []
    for (const id of ids) {
      if (this.gone.has(id) || (ev.kind === KIND.Deletion && !this.retracts(id, ev.pubkey))) continue
      this.gone.add(id)
      const o = this.overlays.get(id)
      if (o) out.push(this.change(overlayOp(o.kind), o.target, channelOf(ev)))
      else out.push(this.change('deleted', id, channelOf(ev)))
    }
    return out.length ? out : [ignored(ev)]
  }

  // retracts reports whether a kind 5 signed by by removes id now: only its
  // author's (a NIP-09 deletion names only the signer's own events; the hub
  // refuses others, and the model does not rely on that alone). A target not
  // loaded yet holds the deletion until it arrives (judgeHeld).
  retracts (id, by) {
    const t = this.rows.get(id) || this.overlays.get(id)
    if (t) return t.author === by
    const held = this.held.get(id)
    if (!held) this.held.set(id, [by])
    else if (!held.includes(by)) held.push(by)
    return false
  }

  // judgeHeld applies the kind 5s held for id, now loaded with its author.
  judgeHeld (id, author) {
    const by = this.held.get(id)
    if (!by) return
    if (by.includes(author)) this.gone.add(id)
    this.held.delete(id)
  }

  /** own reports whether author is the member: their key, or one of their paired devices. */
  own (author) { return author === this.me || this.names.actsFor(author) === this.me }
}

Object.assign(ChatModel.prototype, views)

/** isOverlay reports whether ev modifies a row (fetched by #e). */
export function isOverlay (ev) { return isOverlayKind(ev.kind) }

function ignored (ev) { return { op: 'ignored', channel: '', id: ev.id, loaded: false } }

function push (m, key, v) {
  const l = m.get(key)
  if (l) l.push(v)
  else m.set(key, [v])
}

function newRow (ev) {
  const r = {
    id: ev.id,
    channel: channelOf(ev),
    author: ev.pubkey,
    created: ev.created_at,
    own: millis(ev),
    kind: ev.kind,
    text: ev.content || '',
    parent: '',
    root: '',
    mentions: (ev.tags || []).filter(t => t.length >= 2 && t[0] === 'p').map(t => t[1])
  }
  const appr = ev.kind === KIND.Message && (ev.tags || []).find(t => t.length >= 3 && t[0] === 'approval')
  if (appr) r.approval = { run: appr[1], step: appr[2] }
  r.k = { t: r.own, id: r.id }
  const q = ev.kind === KIND.SystemRow ? { id: '', author: '' } : quoteOf(ev)
  r.quote = q.id
  r.quoteAuthor = q.author
  const root = threadRoot(ev)
  if (root !== ev.id) {
    r.root = root
    r.parent = replyTo(ev)
  }
  return r
}

// overlayOp is what an overlay of kind n changes.
function overlayOp (n) {
  if (n === KIND.Reaction) return 'reacted'
  if (n === KIND.Receipt) return 'receipt'
  if (n === KIND.RunRecord) return 'run'
  return 'edited'
}

function firstTagValue (ev, name) {
  const t = (ev.tags || []).find(t => t.length >= 2 && t[0] === name)
  return t ? t[1] : ''
}

// runBadge reads a workflow run record into the badge it would show on its
// card, as client/chat's runBadge.
function runBadge (ev) {
  const b = { run: firstTagValue(ev, 'R'), status: firstTagValue(ev, 'status'), at: ev.created_at }
  const outcome = firstTagValue(ev, 'outcome')
  if (outcome) b.outcome = outcome
  const step = (ev.tags || []).find(t => t.length >= 4 && t[0] === 'step')
  if (step) {
    b.step = step[1]
    b.index = parseInt(step[2], 10) || 0
    b.of = parseInt(step[3], 10) || 0
  }
  let body = {}
  try { body = JSON.parse(ev.content || '{}') || {} } catch { body = {} }
  if (typeof body.reason === 'string' && body.reason) b.reason = body.reason
  if (typeof body.by === 'string' && body.by) b.by = body.by
  if (Number.isInteger(body.until) && body.until) b.until = body.until
  if (Number.isInteger(body.ms) && body.ms) b.ms = body.ms
  if (typeof body.for === 'string' && body.for) b.for = body.for
  if (typeof body.who === 'string' && body.who) b.who = body.who
  return b
}
