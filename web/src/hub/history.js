// Reading a hub into the chat model, as client/ does (channels.go,
// timeline.go): channels from their hub-signed state, pages of a channel
// with their overlays (two hops by #e) and the names of the keys they show.
import { KIND, OVERLAY_KINDS, TIMELINE_KINDS, CONTENT_KINDS, tagValue } from '../model/kinds.js'

/** SAME_SECOND_MARGIN is how many rows more than shown a page asks for (spec/chat.md, "Paging"). */
export const SAME_SECOND_MARGIN = 20

function channelFromMeta (m) {
  const ch = { id: tagValue(m, 'd'), name: '', about: '', visibility: 'open', type: 'stream', archived: false, members: {}, role: '' }
  for (const t of m.tags) {
    if (t.length < 2) continue
    if (t[0] === 'name') ch.name = t[1]
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

/** keysShown are the authors and p-tagged keys of evs, sorted, each once. */
export function keysShown (evs) {
  const out = new Set()
  for (const e of evs) {
    out.add(e.pubkey)
    for (const t of e.tags) if (t.length >= 2 && t[0] === 'p') out.add(t[1])
  }
  return [...out].sort()
}

/** loadOverlays fetches the overlays of evs by #e, then the deletions of those overlays, into model; it returns them. */
export async function loadOverlays (hub, model, evs) {
  let ids = evs.map(e => e.id)
  const all = []
  for (let hop = 0; hop < 2 && ids.length; hop++) {
    const next = []
    for (let i = 0; i < ids.length; i += 500) {
      const o = await hub.query([{ kinds: hop === 0 ? [...OVERLAY_KINDS] : [KIND.Deletion], '#e': ids.slice(i, i + 500), limit: 5000 }])
      for (const ev of o) {
        model.apply(ev)
        all.push(ev)
        if (ev.kind !== KIND.Deletion && ev.kind !== KIND.DeleteInChannel) next.push(ev.id)
      }
    }
    ids = next
  }
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

/** loadRows loads the rows filter f matches, their overlays and their keys' names into model; it returns the rows' events. */
export async function loadRows (hub, model, f) {
  const evs = await hub.query([f])
  model.applyAll(evs)
  await loadOverlays(hub, model, evs)
  await loadNames(hub, model, keysShown(evs))
  return evs
}

/**
 * loadPage loads the newest page of channel (or the page at or before
 * until): limit rows and SAME_SECOND_MARGIN more, so the rows of the cut's
 * second are all there. It returns the rows' events.
 */
export function loadPage (hub, model, channel, { limit = 100, until } = {}) {
  const f = { kinds: [...TIMELINE_KINDS], '#h': [channel], limit: limit + SAME_SECOND_MARGIN }
  if (until !== undefined) f.until = until
  return loadRows(hub, model, f)
}

/** loadOlder pages channel backwards; it returns how many rows were new (0: the channel's start). */
export async function loadOlder (hub, model, channel, limit = 100) {
  const o = model.oldest(channel)
  if (!o) return (await loadPage(hub, model, channel, { limit })).length
  const before = model.len(channel)
  await loadPage(hub, model, channel, { limit, until: o.at })
  return model.len(channel) - before
}

/** loadUnread loads channel's content rows after since (up to cap), so unread counts cover more than a page. */
export function loadUnread (hub, model, channel, since, cap = 500) {
  return loadRows(hub, model, { kinds: [...CONTENT_KINDS], '#h': [channel], since: since + 1, limit: cap })
}
