// A REQ that lives across reconnects (client/subscribe.go's rules): stored
// events are held until EOSE and handed over oldest first, then live ones;
// after a reconnect it asks again from the newest created_at seen (an event
// dated ahead of this clock counts as its arrival time) minus a skew margin,
// without the original limit, and live events dated before that still come
// (withLiveCopies); every id is delivered once.

const PRUNE_AT = 4096
const MAX_FILTERS = 16 // the hub's cap on filters per REQ

// withLiveCopies adds, for each filter bounded by since, the same filter
// without since and with limit 0 (live only): the hub judges live events
// by since too, so a new event dated behind it (a slow clock, a message
// signed offline and sent later) would never arrive (client/subscribe.go
// does the same). Within the hub's cap; the stored part stays bounded.
function withLiveCopies (filters) {
  const live = filters.filter(f => f.since !== undefined).map(f => {
    const g = { ...f }
    delete g.since
    g.limit = 0
    return g
  })
  return live.length && filters.length + live.length <= MAX_FILTERS ? [...filters, ...live] : filters
}

export class Subscription {
  constructor (hub, id, filters, { onevent, oneose, onclosed, live = true }) {
    this.hub = hub
    this.id = id
    this.filters = filters.map(f => ({ ...f }))
    this.live = live
    this.onevent = onevent || (() => {})
    this.oneose = oneose || (() => {})
    this.onclosed = onclosed || (() => {})
    this.seen = new Map() // id -> created_at
    this.last = 0
    this.stored = new Map()
    this.inStored = true
    this.eosed = false
    this.ended = false
  }

  /** req is the REQ to send on a (new) connection. */
  req () {
    let filters = this.filters
    if (this.live && this.last > 0) {
      const since = this.last - this.hub.skewMargin
      filters = filters.map(f => {
        const g = { ...f }
        if (g.since === undefined || g.since < since) g.since = since
        delete g.limit
        return g
      })
    }
    if (this.live) filters = withLiveCopies(filters)
    this.stored = new Map()
    this.inStored = true
    return ['REQ', this.id, ...filters]
  }

  add (ev) {
    if (this.ended || this.seen.has(ev.id)) return
    if (this.inStored) {
      if (!this.stored.has(ev.id)) this.stored.set(ev.id, ev)
      return
    }
    this.deliver(ev)
  }

  deliver (ev) {
    this.seen.set(ev.id, ev.created_at)
    const at = Math.min(ev.created_at, Math.floor(Date.now() / 1000)) // an event dated ahead counts from its arrival
    if (at > this.last) this.last = at
    this.prune()
    this.onevent(ev)
  }

  prune () {
    if (this.seen.size < PRUNE_AT) return
    const horizon = this.last - this.hub.skewMargin - 1
    for (const [id, at] of this.seen) if (at < horizon) this.seen.delete(id)
  }

  eose () {
    const stored = [...this.stored.values()].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    this.stored = new Map()
    this.inStored = false
    for (const ev of stored) {
      if (this.ended) return
      if (!this.seen.has(ev.id)) this.deliver(ev)
    }
    const first = !this.eosed
    this.eosed = true
    if (first) this.oneose()
  }

  end (reason) {
    if (this.ended) return
    this.ended = true
    this.onclosed(reason)
  }

  /** close ends the subscription and tells the hub. */
  close () {
    if (this.ended && !this.hub.subs.has(this.id)) return
    this.ended = true
    this.hub.subs.delete(this.id)
    this.hub.send(['CLOSE', this.id])
  }
}
