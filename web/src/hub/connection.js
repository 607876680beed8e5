// A connection to a hive hub from the browser (or Node): one websocket,
// NIP-42 AUTH with a signer (and the owner's NIP-OA tag for a device),
// subscriptions that survive reconnects (./subscription.js), joining with a
// NIP-43 invite (./invite.js), publish with OK, and reconnecting with jittered backoff until the hub refuses for good.
// The rules are client/'s (conn.go, client.go, subscribe.go).
import { KIND } from '../model/kinds.js'
import { parseAuthTag } from '../keys/nipoa.js'
import { HubError } from './errors.js'
import { joinRequest } from './invite.js'
import { Stamper } from './stamp.js'
import { Subscription } from './subscription.js'

const PROBE = 'hb' // the heartbeat's subscription id

/**
 * HubConnection is a connection to one hub URL that reconnects by itself
 * until close() or a refusal retrying cannot cure (AUTH refused, cut off).
 * States ('state' events, {state, reason, retryAt, attempt}): connecting,
 * authenticating, connected, reconnecting, refused, closed.
 */
export class HubConnection {
  constructor ({ url, signer, authTag = null, invite = '', WebSocket, minBackoff = 250, maxBackoff = 5000, skewMargin = 10, timeout = 10000, heartbeat = 30000 }) {
    if (!/^wss?:\/\//i.test(url || '')) throw new HubError(`invalid: the hub URL must start with ws:// or wss:// (got ${JSON.stringify(url)})`)
    this.url = url
    this.signer = signer
    this.authTag = authTag
    this.invite = invite // a NIP-43 invite claim: joins the hub if the key is not a member yet
    this.WS = WebSocket || globalThis.WebSocket
    if (!this.WS) throw new Error('no WebSocket: pass one (in Node: the ws package)')
    Object.assign(this, { minBackoff, maxBackoff, skewMargin, timeout, heartbeat })
    this.state = 'idle'
    this.listeners = new Map()
    this.subs = new Map()
    this.nextSub = 0
    this.waiting = new Map() // event id -> publishes waiting for its OK
    this.stamps = new Stamper()
    this.backoff = minBackoff
    this.attempt = 0
    this.ws = null
    this.ready = false
    this.closed = false
    this.timers = new Set()
    this.pubkey = ''
    this.member = ''
  }

  /** on registers fn for 'state' or 'notice' events and returns a function that removes it. */
  on (name, fn) {
    if (!this.listeners.has(name)) this.listeners.set(name, new Set())
    this.listeners.get(name).add(fn)
    return () => this.listeners.get(name).delete(fn)
  }

  emit (name, v) { for (const fn of this.listeners.get(name) || []) fn(v) }

  setState (state, extra = {}) {
    this.state = state
    this.stateInfo = { state, attempt: this.attempt, ...extra }
    this.emit('state', this.stateInfo)
  }

  /**
   * start connects and authenticates; it resolves once connected and
   * rejects with a HubError if the hub refuses (or close() is called first).
   * A hub that cannot be reached is retried meanwhile (state reconnecting).
   */
  async start () {
    this.pubkey = await this.signer.getPublicKey()
    this.member = this.pubkey
    if (this.authTag) {
      const a = parseAuthTag(this.authTag)
      if (a.device) this.member = a.owner
    }
    const up = new Promise((resolve, reject) => {
      const off = this.on('state', s => {
        if (s.state === 'connected') { off(); resolve(this) }
        if (s.state === 'refused' || s.state === 'closed') { off(); reject(new HubError(s.reason || 'closed')) }
      })
    })
    this.dial()
    return up
  }

  later (fn, ms) {
    const t = setTimeout(() => { this.timers.delete(t); fn() }, ms)
    this.timers.add(t)
    return t
  }

  clear (t) { clearTimeout(t); this.timers.delete(t) }

  dial () {
    if (this.closed) return
    this.attempt++
    this.setState('connecting')
    let ws
    try { ws = new this.WS(this.url) } catch (e) { this.lost(null, `cannot connect to ${this.url}: ${e.message}`); return }
    this.ws = ws
    ws.authID = ''
    ws.authTimer = this.later(() => this.drop(ws, `${this.url}: no answer to AUTH within ${this.timeout} ms`), this.timeout)
    ws.onopen = () => { if (this.ws === ws) this.setState('authenticating') }
    ws.onmessage = m => { if (this.ws === ws) this.receive(ws, typeof m.data === 'string' ? m.data : String(m.data)) }
    ws.onclose = e => { if (this.ws === ws) this.lost(ws, e.reason || '') }
    ws.onerror = () => {} // a close follows
  }

  // drop gives up on ws (silent, or its AUTH timed out) as if it had closed.
  drop (ws, reason) {
    if (this.ws !== ws) return
    try { ws.close() } catch { /* already closing */ }
    this.lost(ws, '', reason)
  }

  // lost handles the end of the current socket: a refusal in its close
  // frame ends the connection for good, anything else reconnects.
  lost (ws, closeReason, why) {
    if (ws) {
      this.clear(ws.authTimer)
      this.clear(ws.beat)
      ws.onopen = ws.onmessage = ws.onclose = null
    }
    this.ws = null
    this.ready = false
    if (this.closed) return
    if (/^(restricted|blocked|auth-required):/.test(closeReason)) { this.refuse(closeReason); return }
    const d = this.backoff / 2 + Math.random() * (this.backoff / 2)
    this.backoff = Math.min(this.backoff * 2, this.maxBackoff)
    this.setState('reconnecting', { reason: why || closeReason || 'connection lost', retryAt: Date.now() + d })
    this.later(() => this.dial(), d)
  }

  // refuse ends everything with the hub's reason: no retry cures it.
  refuse (reason) {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    if (this.ws) { const ws = this.ws; this.ws = null; ws.onclose = null; try { ws.close() } catch { /* closing */ } }
    this.ready = false
    const subs = [...this.subs.values()]
    this.subs.clear()
    for (const s of subs) s.end(reason)
    this.failWaiting(reason)
    this.setState('refused', { reason })
  }

  failWaiting (reason) {
    const all = [...this.waiting.values()].flat()
    this.waiting.clear()
    for (const p of all) { this.clear(p.timer); p.reject(new HubError(reason, { eventId: p.ev.id })) }
  }

  send (msg) {
    if (!this.ready || !this.ws) return false
    try { this.ws.send(JSON.stringify(msg)); return true } catch { return false }
  }

  async receive (ws, data) {
    let msg
    try { msg = JSON.parse(data) } catch { return }
    if (!Array.isArray(msg) || msg.length < 2) return
    ws.heard = Date.now()
    const [label] = msg
    if (!this.ready) { await this.authStep(ws, msg); return }
    if (label === 'OK' && msg.length >= 4) this.okFor(msg[1], msg[2] === true, String(msg[3] ?? ''))
    else if (label === 'EVENT' && msg.length >= 3) this.subs.get(msg[1])?.add(msg[2])
    else if (label === 'EOSE') {
      if (msg[1] === PROBE) { this.send(['CLOSE', PROBE]); return }
      this.subs.get(msg[1])?.eose()
    } else if (label === 'CLOSED' && msg.length >= 3) {
      const s = this.subs.get(msg[1])
      if (s) { this.subs.delete(s.id); s.end(String(msg[2])) }
    } else if (label === 'NOTICE') this.emit('notice', String(msg[1]))
  }

  // authStep answers the hub's challenge and waits for its OK.
  async authStep (ws, msg) {
    const [label] = msg
    if (label === 'AUTH' && !ws.authID && typeof msg[1] === 'string') {
      const tags = [['relay', this.url], ['challenge', msg[1]]]
      if (this.authTag) tags.push(this.authTag)
      await this.sendSigned(ws, 'authID', 'AUTH', { kind: KIND.Auth, created_at: Math.floor(Date.now() / 1000), tags, content: '' }, 'the AUTH event')
    } else if (label === 'OK' && ws.authID && msg[1] === ws.authID) {
      const why = String(msg[3] ?? '')
      if (msg[2] !== true) { this.refuse(why || 'AUTH refused'); return }
      // NIP-43: a key that is not a member completes AUTH as a guest, told
      // why in the OK; with an invite it sends its join request (client/invite.go).
      if (!why.startsWith('restricted: ')) { this.up(ws); return }
      if (!this.invite) { this.refuse(why); return }
      await this.sendSigned(ws, 'joinID', 'EVENT', joinRequest(this.invite), 'the join request')
    } else if (label === 'OK' && ws.joinID && msg[1] === ws.joinID) {
      if (msg[2] === true) this.up(ws)
      else this.refuse(String(msg[3] ?? 'join request refused'))
    }
  }

  // sendSigned signs tmpl and, while ws is still the live connection, keeps
  // its id as ws[idKey] and sends it as [label, event]; a signer that fails
  // refuses the connection, naming what it could not sign.
  async sendSigned (ws, idKey, label, tmpl, what) {
    let ev
    try { ev = await this.signer.signEvent(tmpl) } catch (e) {
      this.refuse(`cannot sign ${what}: ${e.message}`)
      return
    }
    if (this.ws !== ws) return
    ws[idKey] = ev.id
    ws.send(JSON.stringify([label, ev]))
  }

  // up makes ws the live connection: every subscription and every publish
  // still waiting for its OK is sent on it.
  up (ws) {
    this.clear(ws.authTimer)
    ws.heard = Date.now()
    this.ready = true
    this.backoff = this.minBackoff
    this.setState('connected')
    for (const s of this.subs.values()) this.send(s.req())
    for (const ps of this.waiting.values()) if (ps.length) this.sendEvent(ps[0])
    const beat = () => {
      if (this.ws !== ws) return
      if (Date.now() - ws.heard > this.heartbeat) {
        this.send(['REQ', PROBE, { ids: ['0'.repeat(64)], limit: 1 }])
        ws.probe = this.later(() => { if (Date.now() - ws.heard > this.heartbeat) this.drop(ws, 'no answer from the hub') }, this.timeout)
      }
      ws.beat = this.later(beat, this.heartbeat)
    }
    ws.beat = this.later(beat, this.heartbeat)
  }

  okFor (id, ok, reason) {
    const ps = this.waiting.get(id)
    if (!ps) return
    this.waiting.delete(id)
    for (const p of ps) {
      this.clear(p.timer)
      if (ok) p.resolve(p.ev)
      else p.reject(new HubError(reason, { eventId: id }))
    }
  }

  sendEvent (p) { if (this.send(['EVENT', p.ev])) p.sent = true }

  /** sign returns a signed copy of tpl: created_at now (with the ms tag for a timeline kind) when unset. A signed event is returned as is. */
  async sign (tpl) {
    if (tpl.sig && tpl.id) return tpl
    const ev = await this.signer.signEvent(this.stamps.stamp(tpl))
    if (this.pubkey && ev.pubkey !== this.pubkey) throw new HubError(`invalid: the signer signed as ${ev.pubkey}, not ${this.pubkey}`)
    return ev
  }

  /**
   * publish signs tpl (see sign), sends it and resolves with the signed
   * event on the hub's OK; it rejects with a HubError holding the hub's
   * reason. Sent again (same id) after a reconnect until the OK or timeout.
   */
  async publish (tpl, { timeout = 20000 } = {}) {
    const ev = await this.sign(tpl)
    if (this.closed && this.state !== 'idle') throw new HubError(this.stateInfo?.reason || 'closed', { eventId: ev.id })
    return new Promise((resolve, reject) => {
      const p = { ev, resolve, reject, sent: false }
      p.timer = this.later(() => {
        const ps = (this.waiting.get(ev.id) || []).filter(x => x !== p)
        if (ps.length) this.waiting.set(ev.id, ps)
        else this.waiting.delete(ev.id)
        reject(p.sent
          ? new HubError(`event ${ev.id} was sent but no OK came within ${timeout} ms: it may be stored; sending it again is safe`, { eventId: ev.id, unknownDelivery: true })
          : new HubError(`hub unreachable: event ${ev.id} not sent within ${timeout} ms`, { eventId: ev.id }))
      }, timeout)
      const ps = this.waiting.get(ev.id)
      if (ps) ps.push(p)
      else { this.waiting.set(ev.id, [p]); this.sendEvent(p) }
    })
  }

  /**
   * subscribe opens a live subscription: onevent(ev) gets the stored events
   * (oldest first) then live ones, each id once, across reconnects;
   * oneose() after the first stored batch; onclosed(reason) when the hub
   * closes it. It returns the subscription ({id, close()}).
   */
  subscribe (filters, handlers = {}) {
    const s = new Subscription(this, `w${++this.nextSub}`, filters, handlers)
    this.subs.set(s.id, s)
    this.send(s.req())
    return s
  }

  /**
   * query resolves with the stored events matching filters, oldest first,
   * or rejects with the hub's refusal. Asked again after a reconnect; it
   * gives up after timeout ms.
   */
  query (filters, { timeout = 30000 } = {}) {
    return new Promise((resolve, reject) => {
      if (this.closed && this.state !== 'idle') { reject(new HubError(this.stateInfo?.reason || 'closed')); return }
      const out = []
      const timer = this.later(() => { s.close(); reject(new HubError(`hub unreachable: the query got no answer within ${timeout} ms`)) }, timeout)
      const s = new Subscription(this, `q${++this.nextSub}`, filters, {
        live: false,
        onevent: ev => out.push(ev),
        oneose: () => { this.clear(timer); s.close(); resolve(out) },
        onclosed: reason => { this.clear(timer); reject(new HubError(reason)) }
      })
      this.subs.set(s.id, s)
      this.send(s.req())
    })
  }

  /** close ends the connection and every subscription, and stops reconnecting. */
  close () {
    if (this.closed && this.state === 'closed') return
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    const ws = this.ws
    this.ws = null
    this.ready = false
    if (ws) { ws.onclose = ws.onmessage = null; try { ws.close() } catch { /* closing */ } }
    const subs = [...this.subs.values()]
    this.subs.clear()
    for (const s of subs) { if (s.live) s.ended = true; else s.end('closed') }
    this.failWaiting('closed')
    this.setState('closed')
  }
}
