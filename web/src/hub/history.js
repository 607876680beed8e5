// Reading a hub into the chat model, as client/ does (channels.go,
// timeline.go): channels from their hub-signed state, pages of a channel
// with their overlays (two hops by #e) and the names of the keys they show.
import { KIND, OVERLAY_KINDS, TIMELINE_KINDS, CONTENT_KINDS, tagValue } from '../model/kinds.js'
import { cleanName } from '../model/names.js'
import { quoteOf } from '../model/quote.js'
import { since } from '../model/position.js'

/** SECOND_MAX bounds how many rows of one second a page completes (spec/chat.md, "Paging"). */
export const SECOND_MAX = 5000

function channelFromMeta (m) {
  const ch = { id: tagValue(m, 'd'), name: '', about: '', visibility: 'open', type: 'stream', archived: false, members: {}, role: '' }
  for (const t of m.tags) {
    if (t.length < 2) continue
    if (t[0] === 'name') ch.name = cleanName(t[1]) // as a member's name: nothing hidden or reordered
    else if (t[0] === 'about') ch.about = t[1]
    else if (t[0] === 'visibility') ch.visibility = t[1]
    else if (t[0] === 'type') ch.type = t[1]
    else if (t[0] === 'archived') ch.archived = t[1] === 'true'
  }
  return ch
}

/**
 * listChannels lists the channels the connection may see, sorted by name:
 * {id, name, about, visibility, type ('stream'|'dm'), archived, members
 * {pubkey: role}, role (the member's, '' if not in it)}.
 */
export async function listChannels (hub, only) {
  const f = { kinds: [KIND.GroupMetadata], limit: 5000 }
  if (only) f['#d'] = only
  const byID = new Map()
  for (const m of await hub.query([f])) byID.set(tagValue(m, 'd'), channelFromMeta(m)) // oldest first: the newest wins
  if (byID.size) {
    // archived: a 9008 stands for it (the hub signs no 39000 after one)
    for (const d of await hub.query([{ kinds: [KIND.DeleteGroup], '#h': [...byID.keys()], limit: 5000 }])) {
      const ch = byID.get(tagValue(d, 'h'))
      if (ch) ch.archived = true
    }
    const rosters = await hub.query([{ kinds: [KIND.GroupMembers], '#d': [...byID.keys()], limit: 5000 }])
    for (const r of rosters) {
      const ch = byID.get(tagValue(r, 'd'))
      if (!ch) continue
      ch.members = {}
      ch.role = ''
      for (const t of r.tags) {
        if (t.length >= 3 && t[0] === 'p') {
          ch.members[t[1]] = t[2]
          if (t[1] === hub.member) ch.role = t[2]
        }
      }
    }
  }
  const key = c => c.name + '\x00' + c.id
  return [...byID.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
}

/** keysShown are the authors, p-tagged keys and quoted authors of evs, sorted, each once. */
export function keysShown (evs) {
  const out = new Set()
  for (const e of evs) {
    out.add(e.pubkey)
    for (const t of e.tags) if (t.length >= 2 && t[0] === 'p') out.add(t[1])
    const q = quoteOf(e).author
    if (q) out.add(q)
  }
  return [...out].sort()
}

/** fetchOverlays asks for the overlays of evs by #e, then the deletions of those overlays; it returns them. */
export async function fetchOverlays (hub, evs) {
  let ids = evs.map(e => e.id)
  const all = []
  for (let hop = 0; hop < 2 && ids.length; hop++) {
    const next = []
    for (let i = 0; i < ids.length; i += 500) {
      const o = await hub.query([{ kinds: hop === 0 ? [...OVERLAY_KINDS] : [KIND.Deletion], '#e': ids.slice(i, i + 500), limit: 5000 }])
      for (const ev of o) {
        all.push(ev)
        if (ev.kind !== KIND.Deletion && ev.kind !== KIND.DeleteInChannel) next.push(ev.id)
      }
    }
    ids = next
  }
  return all
}

/** loadOverlays fetches the overlays of evs (fetchOverlays) into model; it returns them. */
export async function loadOverlays (hub, model, evs) {
  const all = await fetchOverlays(hub, evs)
  model.applyAll(all)
  return all
}

/** loadNames fetches the kind 0 profiles of pks the model does not name yet, then those of the owners they name. */
export async function loadNames (hub, model, pks) {
  for (let round = 0; round < 2; round++) {
    const want = [...new Set(pks)].filter(pk => !model.names.known(pk))
    if (!want.length) return
    const profs = await hub.query([{ kinds: [KIND.Profile], authors: want }])
    pks = []
    for (const p of profs) {
      model.apply(p)
      const o = model.names.owner(p.pubkey)
      if (o) pks.push(o)
    }
    for (const pk of want) model.names.seen(pk) // asked once: a key without a profile keeps its npub
  }
}

/**
 * fetchRows asks for the rows filter f matches and, when the hub returns
 * f.limit of them, the rest of the oldest second it returned (the hub cuts
 * anywhere inside a second: a page never ends inside one).
 */
export async function fetchRows (hub, f) {
  const evs = await hub.query([f])
  if (!evs.length || evs.length < f.limit) return evs
  const oldest = evs.reduce((m, e) => Math.min(m, e.created_at), Infinity)
  const seen = new Set(evs.map(e => e.id))
  for (const e of await hub.query([{ ...f, since: oldest, until: oldest, limit: SECOND_MAX }])) if (!seen.has(e.id)) evs.push(e)
  return evs
}

/** loadRows loads the rows filter f matches (fetchRows), their overlays and their keys' names into model; it returns the rows' events. */
export async function loadRows (hub, model, f) {
  const evs = await fetchRows(hub, f)
  model.applyAll(evs)
  await loadOverlays(hub, model, evs)
  await loadNames(hub, model, keysShown(evs))
  return evs
}

/**
 * fetchPage asks for a page of channel as client.FetchPage does
 * (spec/chat.md, "Paging"; spec/fixtures/session/page.json): its newest
 * limit rows at or before until (default: the newest), the oldest second
 * whole, with their overlays; it applies nothing. It resolves with
 * {events (rows, then overlays), rows, start, oldest}.
 */
export async function fetchPage (hub, channel, { limit = 100, until } = {}) {
  const f = { kinds: [...TIMELINE_KINDS], '#h': [channel], limit }
  if (until !== undefined) f.until = until
  const rows = await fetchRows(hub, f)
  const oldest = rows.reduce((m, e) => Math.min(m, e.created_at), Infinity)
  return { events: [...rows, ...await fetchOverlays(hub, rows)], rows: rows.length, start: rows.length < limit, oldest: rows.length ? oldest : 0 }
}

/**
 * loadPage loads a page of channel (fetchPage) and its keys' names into
 * model. It returns the rows' events; fewer than limit: the channel's start.
 */
export async function loadPage (hub, model, channel, { limit = 100, until } = {}) {
  const p = await fetchPage(hub, channel, { limit, until })
  model.applyAll(p.events)
  const rows = p.events.slice(0, p.rows)
  const quoted = await loadQuoted(hub, model, rows)
  await loadNames(hub, model, keysShown([...rows, ...quoted]))
  return rows
}

/** MAX_QUOTED_FETCH bounds the quoted messages fetched for one page. */
export const MAX_QUOTED_FETCH = 100

/**
 * loadQuoted fetches the messages the rows of evs quote that the model has
 * not loaded (another channel's, an older page's) into it as what the
 * quotes show (applyQuoted), as client.LoadQuoted. It returns them.
 */
export async function loadQuoted (hub, model, evs) {
  const ids = model.missingQuotes(evs, MAX_QUOTED_FETCH)
  if (!ids.length) return []
  const got = await hub.query([{ ids, limit: ids.length }])
  for (const ev of got) model.applyQuoted(ev)
  return got
}

/**
 * loadOlder pages channel backwards: the page before the oldest loaded
 * row's second (whole: every load completes its oldest second). It returns
 * {rows, start}: how many rows came, and whether the channel's first row is loaded.
 */
export async function loadOlder (hub, model, channel, limit = 100) {
  const o = model.oldest(channel)
  const evs = await loadPage(hub, model, channel, o ? { limit, until: o.at - 1 } : { limit })
  return { rows: evs.length, start: evs.length < limit }
}

/** loadUnread loads channel's content rows the read position at may not read (up to cap, the oldest second whole), so unread counts cover more than a page. */
export function loadUnread (hub, model, channel, at, cap = 500) {
  return loadRows(hub, model, { kinds: [...CONTENT_KINDS], '#h': [channel], since: since(at), limit: cap })
}
