// Read state across a member's devices (spec/channels.md, "Read state";
// client/readstate.go): each key writes its own kind 30078 per context
// (d = "read-state:<context>", content = the position in clear: unix
// seconds, then optionally the ids of the rows read in that second); the hub
// serves them to the member's keys only; a context's position is the merge
// over the member's keys (model/position.js), and it never moves backwards.
import { KIND, READ_STATE_PREFIX, tagValue } from '../model/kinds.js'
import { above, covers, formatPosition, mergePositions, parsePosition, position, readAt } from '../model/position.js'

/** parseReadState reads a read-state event into {context, at} (at a position: model/position.js), or null. */
export function parseReadState (ev) {
  const d = tagValue(ev, 'd')
  if (ev.kind !== KIND.ReadState || !d.startsWith(READ_STATE_PREFIX)) return null
  const at = parsePosition(ev.content)
  return at && { context: d.slice(READ_STATE_PREFIX.length), at }
}

/** readStateFilter asks for the read-state events of the member's keys (for the given contexts, or all). */
export function readStateFilter (...contexts) {
  const f = { kinds: [KIND.ReadState], limit: 5000 }
  if (contexts.length) f['#d'] = contexts.map(c => READ_STATE_PREFIX + c)
  return f
}

/** readStates resolves with the member's read positions: {context: position}. */
export async function readStates (hub) {
  const out = {}
  for (const ev of await hub.query([readStateFilter()])) {
    const r = parseReadState(ev)
    if (r) out[r.context] = mergePositions(out[r.context], r.at)
  }
  return out
}

/**
 * markRead advances the member's position of context to at, never back:
 * it writes this key's event with the member's position merged with at
 * (nothing when that reads no more), and when the hub refuses it as not
 * newer it reads the positions again and writes once more; a position
 * naming rows that the hub refuses as invalid (content longer than it
 * takes) becomes the plain position of its second.
 */
export async function markRead (hub, context, at) {
  for (let i = 0; i < 3; i++) {
    let merged = position(0)
    let mine = 0
    for (const ev of await hub.query([readStateFilter(context)])) {
      const r = parseReadState(ev)
      if (r) merged = mergePositions(merged, r.at)
      if (ev.pubkey === hub.pubkey) mine = Math.max(mine, ev.created_at)
    }
    const next = mergePositions(merged, at)
    if (!above(next, merged)) return null
    const tpl = { kind: KIND.ReadState, content: formatPosition(next), tags: [['d', READ_STATE_PREFIX + context]], created_at: Math.max(Math.floor(Date.now() / 1000), mine + 1) }
    try { return await hub.publish(tpl) } catch (e) {
      if (e.prefix === 'invalid' && next.ids) at = readAt(next.at) // a hub that takes less content: the plain position
      else if (e.prefix !== 'duplicate') throw e
    }
  }
  throw new Error(`marking ${context} read: the hub kept refusing the position as not newer`)
}

/**
 * readMarks are the positions to write for what the member sees, each
 * merged with the member's, as client/session.Marks decides
 * (spec/fixtures/session/marks.json): the channel, when it has unread rows,
 * up to every row loaded (model.seen); the open thread, when it has unread
 * replies, up to every reply loaded (model.threadSeen); {context: position}.
 */
export function readMarks (model, positions, channel, thread = '') {
  const out = {}
  if (!channel) return out
  const at = mergePositions(model.seen(channel), positions[channel])
  if (model.unread(channel, positions).unread > 0 && above(at, positions[channel])) out[channel] = at
  if (thread && model.threadUnread(thread, positions).unread > 0) {
    const ctx = 'thread:' + thread
    const th = mergePositions(model.threadSeen(thread), positions[ctx])
    if (above(th, positions[ctx])) out[ctx] = th
  }
  return out
}

/** dividerStays reports whether channel's new-messages divider row stays under positions (client/session.DividerStays): it goes once the channel's position reads it. */
export function dividerStays (model, positions, channel, divider) {
  if (!divider) return false
  const r = model.row(divider)
  return !r || !covers(positions[channel], r.created_at, r.id)
}
