// Read state across a member's devices (spec/channels.md, "Read state";
// client/readstate.go): each key writes its own kind 30078 per context
// (d = "read-state:<context>", content = unix seconds in clear); the hub
// serves them to the member's keys only; a context's position is the
// maximum over the member's keys, and it never moves backwards.
import { KIND, READ_STATE_PREFIX, tagValue } from '../model/kinds.js'

/** parseReadState reads a read-state event into {context, at}, or null. */
export function parseReadState (ev) {
  const d = tagValue(ev, 'd')
  if (ev.kind !== KIND.ReadState || !d.startsWith(READ_STATE_PREFIX)) return null
  if (!/^[0-9]{1,19}$/.test(ev.content)) return null
  return { context: d.slice(READ_STATE_PREFIX.length), at: Number(ev.content) }
}

/** readStateFilter asks for the read-state events of the member's keys (for the given contexts, or all). */
export function readStateFilter (...contexts) {
  const f = { kinds: [KIND.ReadState], limit: 5000 }
  if (contexts.length) f['#d'] = contexts.map(c => READ_STATE_PREFIX + c)
  return f
}

/** readStates resolves with the member's read positions: {context: unix s}. */
export async function readStates (hub) {
  const out = {}
  for (const ev of await hub.query([readStateFilter()])) {
    const r = parseReadState(ev)
    if (r) out[r.context] = Math.max(out[r.context] || 0, r.at)
  }
  return out
}

/**
 * markRead advances the member's position of context to at, never back:
 * it writes this key's event, and when the hub refuses it as not newer it
 * reads the positions again and writes once more.
 */
export async function markRead (hub, context, at) {
  for (let i = 0; i < 3; i++) {
    let merged = 0
    let mine = 0
    for (const ev of await hub.query([readStateFilter(context)])) {
      const r = parseReadState(ev)
      if (r) merged = Math.max(merged, r.at)
      if (ev.pubkey === hub.pubkey) mine = Math.max(mine, ev.created_at)
    }
    if (merged >= at) return null
    const tpl = { kind: KIND.ReadState, content: String(at), tags: [['d', READ_STATE_PREFIX + context]], created_at: Math.max(Math.floor(Date.now() / 1000), mine + 1) }
    try { return await hub.publish(tpl) } catch (e) {
      if (e.prefix !== 'duplicate') throw e
    }
  }
  throw new Error(`marking ${context} read: the hub kept refusing the position as not newer`)
}

/**
 * readMarks are the positions to write for what the member sees, as
 * client/session.Marks decides (spec/fixtures/session/marks.json): the
 * channel, when it has unread rows, up to its newest row; the open thread,
 * when it has unread replies, up to its newest row; {context: at}.
 */
export function readMarks (model, positions, channel, thread = '') {
  const out = {}
  if (!channel) return out
  const at = model.newest(channel)
  if (model.unread(channel, positions).unread > 0 && at > (positions[channel] || 0)) out[channel] = at
  if (thread && model.threadUnread(thread, positions).unread > 0) {
    const newest = model.thread(thread).reduce((m, r) => Math.max(m, r.created_at), 0)
    if (newest > (positions['thread:' + thread] || 0)) out['thread:' + thread] = newest
  }
  return out
}

/** dividerStays reports whether channel's new-messages divider row stays under positions (client/session.DividerStays): it goes once the channel's position reaches it. */
export function dividerStays (model, positions, channel, divider) {
  if (!divider) return false
  const r = model.row(divider)
  return !r || r.created_at > (positions[channel] || 0)
}
