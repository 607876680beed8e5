// Event times for what the client signs (spec/chat.md, "Order"): timed
// kinds (rows, overlays, channel changes) carry ["ms", "<milliseconds>"], and one client's times never repeat
// or go back, so one author's same-second messages keep their send order.
import { isTimedKind, MS_TAG } from '../model/kinds.js'

/** Stamper hands out millisecond times that only move forward. */
export class Stamper {
  constructor (now = () => Date.now()) {
    this.now = now
    this.last = 0
  }

  next () {
    let ms = this.now()
    if (ms <= this.last) ms = this.last + 1
    this.last = ms
    return ms
  }

  /** stamp returns a copy of tpl with created_at now (and the ms tag for a timeline kind) when created_at is unset. */
  stamp (tpl) {
    const out = { kind: tpl.kind, content: tpl.content || '', tags: (tpl.tags || []).map(t => [...t]), created_at: tpl.created_at }
    if (out.created_at) return out
    if (!isTimedKind(out.kind) || out.tags.some(t => t[0] === MS_TAG)) {
      out.created_at = Math.floor(this.now() / 1000)
      return out
    }
    const ms = this.next()
    out.created_at = Math.floor(ms / 1000)
    out.tags.push([MS_TAG, String(ms % 1000)])
    return out
  }
}
