// Messages on their way to the hub: signed at once (so each has its id),
// shown as pending rows in the author's view while the connection is down
// or the hub has not answered, published when it is back (HubConnection
// keeps a publish waiting for its OK across reconnects, sending the same
// event again), and turned into the stored row when the OK comes. A
// refusal keeps the row with the hub's reason until it is retried (the same
// event, so it can never be stored twice) or discarded.
import { channelOf, threadRoot } from '../model/kinds.js'

/** SEND_TIMEOUT is how long (ms) a message stays "sending…" before it is shown as not sent. */
export const SEND_TIMEOUT = 5 * 60 * 1000

/**
 * SHOW_AFTER is how long (ms) a message sent over a live connection may
 * wait for its OK before it shows as "sending…" (most OKs come sooner: the
 * row then appears once, stored, without a flicker). Over a connection that
 * is down it shows at once.
 */
export const SHOW_AFTER = 250

/** Outbox holds a member's unacknowledged messages; changed() runs after each change. */
export class Outbox {
  constructor (hub, model, changed = () => {}, { timeout = SEND_TIMEOUT, showAfter = SHOW_AFTER } = {}) {
    this.hub = hub
    this.model = model
    this.changed = changed
    this.timeout = timeout
    this.showAfter = showAfter
    this.items = new Map() // event id -> {ev, state: 'sending'|'failed', reason, attempt, showAt, timer}
  }

  /** send signs tpl and queues it; it resolves with the signed event once queued (not once stored). */
  async send (tpl) {
    const ev = await this.hub.sign(tpl)
    const it = { ev, state: 'sending', reason: '', attempt: 0 }
    this.items.set(ev.id, it)
    this.push(it)
    return ev
  }

  // push publishes it; a retry (now) shows as sending at once: the person
  // clicked and the row must not keep offering Retry and Discard meanwhile.
  push (it, now = false) {
    it.attempt++
    it.state = 'sending'
    it.reason = ''
    const wait = this.hub.state === 'connected' && !now ? this.showAfter : 0
    it.showAt = Date.now() + wait
    clearTimeout(it.timer)
    if (wait > 0) it.timer = setTimeout(() => this.changed(), wait)
    else this.changed()
    it.done = this.hub.publish(it.ev, { timeout: this.timeout }).then(ev => {
      clearTimeout(it.timer)
      this.model.apply(ev)
      this.items.delete(ev.id)
      this.changed()
      return true
    }, e => {
      clearTimeout(it.timer)
      if (this.items.get(it.ev.id) !== it) return false
      it.state = 'failed'
      it.reason = String(e?.reason || e?.message || e)
      this.changed()
      return false
    })
  }

  /** retry publishes a refused message again (the same event); it resolves true once stored. */
  retry (id) {
    const it = this.items.get(id)
    if (!it || it.state !== 'failed') return Promise.resolve(false)
    this.push(it, true)
    return it.done
  }

  /** discard drops a refused message and returns its text ('' if none). */
  discard (id) {
    const it = this.items.get(id)
    if (!it || it.state !== 'failed') return ''
    this.items.delete(id)
    this.changed()
    return it.ev.content
  }

  /** close stops the timers (the connection's close fails what still waits). */
  close () {
    for (const it of this.items.values()) clearTimeout(it.timer)
  }

  /**
   * rows are the pending messages of channel (top level), or of the thread
   * root when given, as model rows with pending ('sending' or 'failed') and
   * reason, oldest first; a message the model already holds is left out,
   * and so is one sent less than SHOW_AFTER ago over a live connection.
   */
  rows (channel, root = '') {
    const out = []
    const now = Date.now()
    for (const { ev, state, reason, attempt, showAt } of this.items.values()) {
      if (this.model.rows.has(ev.id) || channelOf(ev) !== channel || (state === 'sending' && now < showAt)) continue
      const r = threadRoot(ev)
      if (root ? r !== root || ev.id === root : r !== ev.id) continue
      out.push(pendingRow(ev, state, reason, attempt))
    }
    return out.sort((a, b) => a.created_at - b.created_at)
  }
}

function pendingRow (ev, state, reason, attempt) {
  const root = threadRoot(ev)
  const mentions = ev.tags.filter(t => t.length >= 2 && t[0] === 'p').map(t => t[1])
  return {
    id: ev.id,
    channel: channelOf(ev),
    author: ev.pubkey,
    created_at: ev.created_at,
    kind: ev.kind,
    text: ev.content,
    system: false,
    edited: false,
    edited_at: 0,
    deleted: false,
    root: root === ev.id ? '' : root,
    reply_to: '',
    mentions,
    reactions: [],
    receipts: [],
    replies: 0,
    last_reply: 0,
    pending: state,
    attempt,
    reason
  }
}
