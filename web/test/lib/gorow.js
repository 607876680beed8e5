// Rows as client/chat marshals them, for comparing the JS model with the Go
// one (the fixtures, hive read --json): empty omitempty fields left out.

/** OMIT_EMPTY are the row fields client/chat marshals with omitempty. */
export const OMIT_EMPTY = ['system', 'edited', 'edited_at', 'deleted', 'root', 'reply_to', 'mentions', 'reactions', 'receipts', 'replies', 'last_reply', 'quote']

function empty (v) { return v === false || v === '' || v === 0 || v == null || (Array.isArray(v) && v.length === 0) }

/** asGo is a JS row as client/chat marshals it. */
export function asGo (r) {
  const o = { ...r }
  for (const f of OMIT_EMPTY) if (empty(o[f])) delete o[f]
  return o
}
