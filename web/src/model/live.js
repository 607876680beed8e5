// Presence, typing and the agents' turns in flight (spec/chat.md,
// "Presence, typing and the working signal"), as client/chat/live.go keeps
// them. Times are milliseconds since the epoch.
import { KIND, channelOf } from './kinds.js'

/** PRESENCE_TTL: a presence older than this (ms) reads as offline. */
export const PRESENCE_TTL = 10 * 60 * 1000
/** TYPING_TTL: a typing indicator older than this (ms) has stopped. */
export const TYPING_TTL = 8 * 1000

/** Sources of the working signal. */
export const FROM_OBSERVER = 'observer'
export const FROM_TYPING = 'typing'

/** Live is presence, typing and turns in flight, each with when it was last seen. */
export class Live {
  constructor () {
    this.presenceBy = new Map() // pk -> {status, at}
    this.typingBy = new Map() // channel -> Map(pk -> span)
    this.turns = new Map() // agent -> Map(turn -> span)
  }

  /** apply records a presence or typing event seen at now and reports whether it was one. */
  apply (ev, now) {
    if (ev.kind === KIND.Presence) {
      const st = (ev.content || '').trim() || 'online'
      this.presenceBy.set(ev.pubkey, { status: st, at: now })
    } else if (ev.kind === KIND.Typing) {
      const ch = channelOf(ev)
      if (!ch) return false
      if ((ev.content || '').trim() === 'stop') {
        this.stopTyping(ch, ev.pubkey)
        return true
      }
      let byKey = this.typingBy.get(ch)
      if (!byKey) { byKey = new Map(); this.typingBy.set(ch, byKey) }
      const s = byKey.get(ev.pubkey)
      if (s && now - s.last <= TYPING_TTL) s.last = now
      else byKey.set(ev.pubkey, { channel: ch, first: now, last: now })
    } else return false
    this.expire(now)
    return true
  }

  /** stopTyping ends pk's typing in channel. */
  stopTyping (channel, pk) {
    const byKey = this.typingBy.get(channel)
    if (!byKey) return
    byKey.delete(pk)
    if (byKey.size === 0) this.typingBy.delete(channel)
  }

  /** sent ends pk's typing in channel when its message sent at (ms, to the second) is not older than the typing. */
  sent (channel, pk, at) {
    const s = this.typingBy.get(channel)?.get(pk)
    if (s && !(at + 1000 < s.first)) this.stopTyping(channel, pk)
  }

  expire (now) {
    for (const [ch, byKey] of this.typingBy) {
      for (const [pk, s] of byKey) if (now - s.last > TYPING_TTL) byKey.delete(pk)
      if (byKey.size === 0) this.typingBy.delete(ch)
    }
    for (const [pk, s] of this.presenceBy) if (now - s.at > PRESENCE_TTL) this.presenceBy.delete(pk)
  }

  /** presence is pk's status at now: online, away, offline (also when stale or never seen). */
  presence (pk, now) {
    const s = this.presenceBy.get(pk)
    return !s || now - s.at > PRESENCE_TTL ? 'offline' : s.status
  }

  /** typing lists who is typing in channel at now, sorted. */
  typing (channel, now) {
    const out = []
    for (const [pk, s] of this.typingBy.get(channel) || []) if (now - s.last <= TYPING_TTL) out.push(pk)
    return out.sort()
  }

  /** turnStarted records that agent's observer frames show turn in flight in channel since at. */
  turnStarted (agent, channel, turn, at) {
    let byTurn = this.turns.get(agent)
    if (!byTurn) { byTurn = new Map(); this.turns.set(agent, byTurn) }
    const s = byTurn.get(turn)
    if (s) { s.last = at; return }
    byTurn.set(turn, { channel, first: at, last: at })
  }

  /** turnEnded records that agent's turn is over. */
  turnEnded (agent, turn) {
    const byTurn = this.turns.get(agent)
    if (!byTurn) return
    byTurn.delete(turn)
    if (byTurn.size === 0) this.turns.delete(agent)
  }

  /**
   * working says whether agent is working in channel ('' for any) at now:
   * a turn in flight in its observer frames first, else its typing.
   * It is {working, source, channel, since, elapsed} (ms).
   */
  working (agent, channel, now) {
    let w = { working: false }
    const pick = (source, s) => {
      if (channel && s.channel !== channel) return
      if (!w.working || s.first < w.since) w = { working: true, source, channel: s.channel, since: s.first, elapsed: now - s.first }
    }
    for (const s of (this.turns.get(agent) || new Map()).values()) pick(FROM_OBSERVER, s)
    if (w.working) return w
    for (const byKey of this.typingBy.values()) {
      const s = byKey.get(agent)
      if (s && now - s.last <= TYPING_TTL) pick(FROM_TYPING, s)
    }
    return w
  }
}
