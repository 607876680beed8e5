// A list of rows kept in timeline order by their key {t, id}: time in
// milliseconds (moved after the message a reply answers), then id.

/** keyLess orders two keys. */
export function keyLess (a, b) { return a.t !== b.t ? a.t < b.t : a.id < b.id }

/** at is where key k sits (or would sit) in rows. */
export function at (rows, k) {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keyLess(rows[mid].k, k)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** insert puts r at its place. */
export function insert (rows, r) { rows.splice(at(rows, r.k), 0, r) }

/** remove takes r out (found by its current key). */
export function remove (rows, r) {
  const i = at(rows, r.k)
  if (i < rows.length && rows[i] === r) rows.splice(i, 1)
}
