// The directory of names taken from kind 0 profiles (spec/chat.md, "Names"),
// as client/chat/names.go keeps it.
import { encodeNpub, findAuthTag, shortNpub, verifyAuthTag } from '../keys/index.js'

// field reads a profile field as Go's encoding/json does: keys match
// ignoring case, the last match of the right type wins, a value of another
// type is skipped.
function field (meta, name, type, dflt) {
  let v = dflt
  for (const [k, x] of Object.entries(meta)) {
    if (k.toLowerCase() === name && typeof x === type) v = x
  }
  return v
}

function profileOf (ev) {
  let meta = {}
  try { meta = JSON.parse(ev.content) } catch { meta = {} } // a profile that is not JSON has no name
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) meta = {}
  const p = { name: field(meta, 'name', 'string', ''), display: field(meta, 'display_name', 'string', ''), bot: field(meta, 'bot', 'boolean', false), device: false, owner: '', at: ev.created_at, id: ev.id }
  p.name = p.name.trim()
  p.display = p.display.trim()
  if ((ev.tags || []).some(t => t.length === 1 && t[0] === 'bot')) p.bot = true
  const tag = findAuthTag(ev)
  if (tag) {
    try {
      const a = verifyAuthTag(tag, ev.pubkey)
      p.owner = a.owner
      p.device = a.device // a ["device"] tag is only a label
    } catch { /* an auth tag that does not verify names no owner */ }
  }
  return p
}

function foldEq (a, b) { return a.toLowerCase() === b.toLowerCase() || a.toUpperCase() === b.toUpperCase() }

/** Names is the directory of names, refreshed as newer profiles arrive. */
export class Names {
  constructor () {
    this.byKey = new Map()
    this.asked = new Set()
  }

  /** seen records that pk's profile was looked up (it may have none). */
  seen (pk) { this.asked.add(pk) }

  /** known reports whether pk has a profile here or was looked up already. */
  known (pk) { return this.byKey.has(pk) || this.asked.has(pk) }

  /** apply records a kind 0 if newer than the one known (later created_at, then lower id); it reports whether it was. */
  apply (ev) {
    const old = this.byKey.get(ev.pubkey)
    if (old && (ev.created_at < old.at || (ev.created_at === old.at && ev.id >= old.id))) return false
    this.byKey.set(ev.pubkey, profileOf(ev))
    return true
  }

  /** own is the name a key gives itself: display_name, else name, else its short npub. */
  own (pk) {
    const p = this.byKey.get(pk)
    if (p && p.display) return p.display
    if (p && p.name) return p.name
    return shortNpub(pk)
  }

  /** name is how pk is shown: a device as its owner, an agent as "claude (alice's agent)". */
  name (pk) {
    const p = this.byKey.get(pk)
    if (!p) return shortNpub(pk)
    if (p.device) return this.own(p.owner)
    if (p.owner) return `${this.own(pk)} (${this.own(p.owner)}'s agent)`
    if (p.bot) return `${this.own(pk)} (agent)`
    return this.own(pk)
  }

  /** label is name with a device's own name ("alice (laptop)"). */
  label (pk) {
    const p = this.byKey.get(pk)
    if (p && p.device) return `${this.own(p.owner)} (${this.own(pk)})`
    return this.name(pk)
  }

  /** actsFor is the member a key acts for: a paired device's owner, else the key. */
  actsFor (pk) {
    const p = this.byKey.get(pk)
    return p && p.device ? p.owner : pk
  }

  /** owner is the owner of an agent or a paired device, '' for anyone else. */
  owner (pk) { const p = this.byKey.get(pk); return p ? p.owner : '' }

  /** isAgent reports whether pk's profile marks it as an agent. */
  isAgent (pk) { const p = this.byKey.get(pk); return !!p && !p.device && (p.bot || p.owner !== '') }

  /** isDevice reports whether pk is a paired device with a valid attestation. */
  isDevice (pk) { const p = this.byKey.get(pk); return !!p && p.device }

  /** agentsOf lists (sorted) the agents whose verified attestation names owner. */
  agentsOf (owner) { return [...this.byKey.keys()].filter(pk => this.isAgent(pk) && this.owner(pk) === owner).sort() }

  /** lookup lists the keys (sorted) whose name or display_name is name, ignoring case and a leading @; never devices. */
  lookup (name) {
    let n = name.trim()
    if (n.startsWith('@')) n = n.slice(1)
    const out = []
    for (const [pk, p] of this.byKey) {
      if (p.device) continue
      if (foldEq(p.name, n) || foldEq(p.display, n)) out.push(pk)
    }
    return out.sort()
  }

  /**
   * complete lists the keys whose name or display_name starts with prefix
   * (ignoring case and a leading @), for @ completion: [{pubkey, name}]
   * sorted by name; devices are left out (they act as their owners).
   */
  complete (prefix) {
    let n = prefix.trim().toLowerCase()
    if (n.startsWith('@')) n = n.slice(1)
    const out = []
    for (const [pk, p] of this.byKey) {
      if (p.device) continue
      if ((p.name && p.name.toLowerCase().startsWith(n)) || (p.display && p.display.toLowerCase().startsWith(n))) {
        out.push({ pubkey: pk, name: this.name(pk), handle: p.name || p.display })
      }
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : (a.pubkey < b.pubkey ? -1 : 1)))
  }

  /** render shows text with each mention of a key in mentions (nostr:npub1... or npub1...) as @name. */
  render (text, mentions) {
    for (const pk of mentions || []) {
      let npub
      try { npub = encodeNpub(pk) } catch { continue }
      if (!text.includes(npub)) continue
      const name = '@' + this.own(pk)
      text = text.split('nostr:' + npub).join(name).split(npub).join(name)
    }
    return text
  }
}
