// Quotes (spec/chat.md, "Quotes"), as client/chat/quote.go: a q tag
// (["q", id, relay, author]) or, without one, the first nostr:nevent1 /
// nostr:note1 reference in the text names the quoted message; the row shows
// its author and first line, and its shown text drops every event
// reference, so no surface shows raw bech32.
import * as nip19 from 'nostr-tools/nip19'
import { KIND } from './kinds.js'
import { keyLess } from './sorted.js'

/** QUOTE_LINE_MAX bounds a quote's first line, in characters. */
export const QUOTE_LINE_MAX = 120

const REF = 'nostr:(?:nevent|note)1[02-9ac-hj-np-z]+'
const HEX64 = /^[0-9a-f]{64}$/

/** quoteOf is the message ev quotes: {id, author} ('' when none). */
export function quoteOf (ev) {
  // a workflow run's card (an a tag naming a definition, 30460:...) quotes
  // nothing: its q tag names the run's claim
  if ((ev.tags || []).some(t => t.length >= 2 && t[0] === 'a' && t[1].startsWith(KIND.WorkflowDef + ':'))) return { id: '', author: '' }
  for (const t of ev.tags || []) {
    if (t.length >= 2 && t[0] === 'q' && HEX64.test(t[1])) {
      return { id: t[1], author: t.length >= 4 && HEX64.test(t[3]) ? t[3] : '' }
    }
  }
  for (const ref of (ev.content || '').match(new RegExp(REF, 'g')) || []) {
    const q = decodeRef(ref)
    if (q.id) return q
  }
  return { id: '', author: '' }
}

function decodeRef (ref) {
  let d
  try { d = nip19.decode(ref.slice('nostr:'.length)) } catch { return { id: '', author: '' } }
  if (d.type === 'note' && HEX64.test(d.data)) return { id: d.data, author: '' }
  if (d.type === 'nevent' && HEX64.test(d.data.id)) return { id: d.data.id, author: HEX64.test(d.data.author || '') ? d.data.author : '' }
  return { id: '', author: '' }
}

/** dropRefs removes every event reference from text, with the blank space it leaves. */
export function dropRefs (text) {
  if (!text.includes('nostr:n')) return text
  const out = text.replace(new RegExp('[ \\t]*' + REF, 'g'), '')
  if (out === text) return text
  return out.replace(/\n[ \t]*\n([ \t]*\n)+/g, '\n\n').trim()
}

/** firstLine is text's first non-empty line, at most QUOTE_LINE_MAX characters. */
export function firstLine (text) {
  for (let l of text.split('\n')) {
    l = l.trim()
    if (!l) continue
    const cps = Array.from(l)
    return cps.length > QUOTE_LINE_MAX ? cps.slice(0, QUOTE_LINE_MAX - 1).join('') + '…' : l
  }
  return ''
}

/** quoteLine is a quote in one line, as client/chat's Quote.Line: "NAME: first line". */
export function quoteLine (q) {
  const text = q.text || '(message not loaded or deleted)'
  return q.name ? `${q.name}: ${text}` : text
}

/** quote is the quote row r shows ({id, author, name, text} as client/chat marshals it), or null. */
export function quoteView (m, r) {
  if (!r.quote) return null
  const q = { id: r.quote, author: r.quoteAuthor, name: '', text: '' }
  const src = m.rows.get(r.quote) || m.quoted.get(r.quote)
  if (src) {
    q.author = src.author
    if (!m.gone.has(src.id)) {
      q.text = firstLine(m.text({ system: src.kind === KIND.SystemRow, text: currentText(m, src), mentions: src.mentions }))
    }
  }
  if (q.author) q.name = m.names.name(q.author)
  if (!q.author) delete q.author
  if (!q.name) delete q.name
  return q
}

function currentText (m, r) {
  let edit = null
  for (const o of m.byTarget.get(r.id) || []) {
    if (o.kind === KIND.Edit && !m.gone.has(o.id) && (!edit || keyLess(edit.k, o.k))) edit = o
  }
  return edit ? edit.text : r.text
}
