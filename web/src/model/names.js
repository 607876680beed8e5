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

// INVISIBLE are the characters a name drops (client/termtext.Invisible):
// the bidirectional controls, zero-width characters, U+FEFF, U+180E, the
// soft hyphen and the controls; SPACE_CONTROL the controls that are white
// space, which become a space.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g
const SPACE_CONTROL = /[\t\n\v\f\r\u0085]/g

/**
 * cleanName is a name (a profile's name or display_name, a channel's name)
 * as every surface shows it (spec/chat.md, "Names"; client/chat.CleanName):
 * invisible and reordering characters dropped, a white-space control as a
 * space, the ends trimmed.
 */
export function cleanName (s) {
  return String(s).replace(SPACE_CONTROL, ' ').replace(INVISIBLE, '').trim()
}

/** foldName is how alike two clean names look (client/chat.Fold): NFKC, each character in lower case, white space runs as one space. */
export function foldName (s) {
  return [...s.normalize('NFKC')].map(c => c.toLowerCase()).join('').replace(/\s+/g, ' ').trim()
}

function profileOf (ev) {
  let meta = {}
  try { meta = JSON.parse(ev.content) } catch { meta = {} } // a profile that is not JSON has no name
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) meta = {}
  const p = { name: field(meta, 'name', 'string', ''), display: field(meta, 'display_name', 'string', ''), bot: field(meta, 'bot', 'boolean', false), device: false, owner: '', at: ev.created_at, id: ev.id }
  p.name = cleanName(p.name)
  p.display = cleanName(p.display)
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

function ownName (p) { return p.display || p.name }

/**
 * Names is the directory of names, refreshed as newer profiles arrive; a
 * name that looks like another key's (the same foldName) shows with the
 * key's short npub.
 */
export class Names {
  constructor () {
    this.byKey = new Map()
    this.asked = new Set()
    this.looks = new Map() // foldName of an own name -> how many keys (not devices) give it
  }

  /** seen records that pk's profile was looked up (it may have none). */
  seen (pk) { this.asked.add(pk) }

  /** known reports whether pk has a profile here or was looked up already. */
  known (pk) { return this.byKey.has(pk) || this.asked.has(pk) }

  /** apply records a kind 0 if newer than the one known (later created_at, then lower id); it reports whether it was. */
  apply (ev) {
    const old = this.byKey.get(ev.pubkey)
    if (old && (ev.created_at < old.at || (ev.created_at === old.at && ev.id >= old.id))) return false
    const p = profileOf(ev)
    if (old && old.looks) this.looks.set(old.looks, this.looks.get(old.looks) - 1)
    p.looks = ''
    if (ownName(p) && !p.device) {
      p.looks = foldName(ownName(p))
      this.looks.set(p.looks, (this.looks.get(p.looks) || 0) + 1)
    }
    this.byKey.set(ev.pubkey, p)
    return true
  }

  /** own is the name a key gives itself: display_name, else name, else its short npub; one another key's looks like too is followed by the short npub. */
  own (pk) {
    const p = this.byKey.get(pk)
    if (p && ownName(p)) return this.looks.get(p.looks) > 1 ? `${ownName(p)} (${shortNpub(pk)})` : ownName(p)
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

  /** lookup lists the keys (sorted) whose name or display_name looks like name (the same foldName of cleanName: case ignored), without a leading @; never devices. */
  lookup (name) {
    let n = name.trim()
    if (n.startsWith('@')) n = n.slice(1)
    n = foldName(cleanName(n))
    const out = []
    for (const [pk, p] of this.byKey) {
      if (p.device) continue
      if ((p.name && foldName(p.name) === n) || (p.display && foldName(p.display) === n)) out.push(pk)
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
