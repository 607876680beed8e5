// Read positions (spec/channels.md, "Read state"; kinds/readpos.go): every
// row before second `at` is read and, of second `at`, the rows `ids` names
// (sorted, distinct), or all of them when ids is null (the plain position,
// the content "at"). A row another member writes in the second of a mark,
// after it, is not named, so it stays unread.

/** MAX_READ_IDS bounds the rows a position names; past it a client writes the plain position. */
export const MAX_READ_IDS = 64

/** readAt is the plain position: every row up to and including second at. */
export function readAt (at) { return { at, ids: null } }

/** readThrough reads every row before second at and, of second at, the rows ids (more than MAX_READ_IDS: the plain position; none: the plain position of the second before). */
export function readThrough (at, ids) {
  const sorted = [...new Set(ids)].sort()
  if (sorted.length > MAX_READ_IDS) return readAt(at)
  if (!sorted.length) return readAt(Math.max(at - 1, 0))
  return { at, ids: sorted }
}

/** position reads a position given as unix seconds, {at, ids} or nothing (nothing read). */
export function position (v) {
  if (!v) return readAt(0)
  if (typeof v === 'number') return readAt(v)
  return v.ids ? readThrough(v.at, v.ids) : readAt(v.at)
}

const SECONDS = /^(0|[1-9][0-9]{0,18})$/
const EVENT_ID = /^[0-9a-f]{64}$/

/** parsePosition reads a read-state event's content ("S" or "S id1 id2 ...", as the hub accepts it), or null. */
export function parsePosition (content) {
  if (typeof content !== 'string') return null
  const f = content.split(' ')
  if (!SECONDS.test(f[0])) return null
  const at = Number(f[0])
  if (f.length === 1) return readAt(at)
  const ids = f.slice(1)
  if (ids.length > MAX_READ_IDS || !ids.every(id => EVENT_ID.test(id)) || new Set(ids).size !== ids.length) return null
  return readThrough(at, ids)
}

/** formatPosition is p as a read-state event's content. */
export function formatPosition (p) {
  p = position(p)
  return [String(p.at), ...(p.ids || [])].join(' ')
}

/** covers reports whether p reads the row id of second at. */
export function covers (p, at, id) {
  p = position(p)
  return at < p.at || (at === p.at && (!p.ids || p.ids.includes(id)))
}

/** since is the first second that may hold a row p does not read. */
export function since (p) {
  p = position(p)
  return p.ids ? p.at : p.at + 1
}

/** mergePositions reads what p or q reads: the later second wins; in one second the rows of both (the plain position reads them all). */
export function mergePositions (p, q) {
  p = position(p)
  q = position(q)
  if (p.at !== q.at) return p.at > q.at ? p : q
  if (!p.ids || !q.ids) return readAt(p.at)
  return readThrough(p.at, [...p.ids, ...q.ids])
}

/** equalPositions reports whether p and q read the same rows. */
export function equalPositions (p, q) {
  return formatPosition(p) === formatPosition(q) // a position that names rows names at least one
}

/** above reports whether p reads every row q reads and more (the only way a key's position may move). */
export function above (p, q) {
  return !equalPositions(p, q) && equalPositions(mergePositions(p, q), p)
}

/** positionJSON is p in the form of spec/fixtures: unix seconds when plain, else {at, ids}. */
export function positionJSON (p) {
  p = position(p)
  return p.ids ? { at: p.at, ids: p.ids } : p.at
}
