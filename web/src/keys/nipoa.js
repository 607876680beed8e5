// NIP-OA owner attestations, as identity/ reads them: the auth tag
// ["auth", owner, conditions, sig], its strict conditions grammar, the
// owner's BIP-340 signature over "nostr:agent-auth:<agent>:<conditions>",
// and the device clause created_at>0 that only hive pair signs.
import { schnorr } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { hexToBytes, isLowerHex, utf8 } from './hex.js'

/** DEVICE_CLAUSE marks a paired device's attestation (spec/identity.md). */
export const DEVICE_CLAUSE = 'created_at>0'

const MAX_KIND = 65535
const MAX_TIMESTAMP = 4294967295

/** isValidPubkey reports whether hex is 64 lowercase hex forming an x-only secp256k1 point. */
export function isValidPubkey (hex) {
  if (!isLowerHex(hex, 64)) return false
  try {
    schnorr.utils.lift_x(BigInt('0x' + hex))
    return true
  } catch { return false }
}

function canonicalNumber (s, limit) {
  if (s === '' || !/^[0-9]+$/.test(s)) return null
  if (s.length > 1 && s[0] === '0') return null
  const v = Number(s)
  return v > limit ? null : v
}

/**
 * parseConditions parses a NIP-OA conditions string strictly (kind=N,
 * created_at<T, created_at>T joined by &) into {kinds, before, after}
 * (before/after undefined when absent, else the tightest bound). It throws
 * an Error naming the bad clause.
 */
export function parseConditions (s) {
  const c = { kinds: [], before: undefined, after: undefined }
  if (s === '') return c
  for (const clause of s.split('&')) {
    if (clause === '') throw new Error(`malformed NIP-OA conditions: empty clause in ${JSON.stringify(s)}`)
    let name
    for (const n of ['kind=', 'created_at<', 'created_at>']) if (clause.startsWith(n)) name = n
    if (!name) throw new Error(`malformed NIP-OA conditions: unknown clause ${JSON.stringify(clause)}`)
    const v = canonicalNumber(clause.slice(name.length), name === 'kind=' ? MAX_KIND : MAX_TIMESTAMP)
    if (v === null) throw new Error(`malformed NIP-OA conditions: bad number in clause ${JSON.stringify(clause)}`)
    if (name === 'kind=') { if (!c.kinds.includes(v)) c.kinds.push(v) } else if (name === 'created_at<') {
      c.before = c.before === undefined ? v : Math.min(c.before, v)
    } else c.after = c.after === undefined ? v : Math.max(c.after, v)
  }
  return c
}

/** isDeviceConditions reports whether a conditions string, as signed, holds the device clause. */
export function isDeviceConditions (raw) { return raw.split('&').includes(DEVICE_CLAUSE) }

/** timeHolds reports whether parsed conditions' time clauses hold at createdAt (unix s). */
export function timeHolds (c, createdAt) {
  return (c.before === undefined || createdAt < c.before) && (c.after === undefined || createdAt > c.after)
}

/**
 * parseAuthTag checks an auth tag's structure without cryptography and
 * returns {owner, raw, conditions, sig, device}; it throws on a malformed tag.
 */
export function parseAuthTag (tag) {
  if (!Array.isArray(tag) || tag.length !== 4) throw new Error('malformed auth tag: want 4 elements ["auth", owner_pubkey_hex, conditions, sig_hex]')
  if (tag[0] !== 'auth') throw new Error(`malformed auth tag: first element is ${JSON.stringify(tag[0])}, want "auth"`)
  if (!isValidPubkey(tag[1])) throw new Error('invalid owner public key in auth tag')
  const conditions = parseConditions(tag[2])
  if (!isLowerHex(tag[3], 128)) throw new Error('invalid auth tag signature: must be 128 lowercase hex characters')
  return { owner: tag[1], raw: tag[2], conditions, sig: tag[3], device: isDeviceConditions(tag[2]) }
}

/**
 * verifyAuthTag checks tag for the key agent (structure, owner != agent,
 * the owner's signature) and returns the parsed attestation; it throws
 * otherwise. It does not evaluate the conditions (see timeHolds).
 */
export function verifyAuthTag (tag, agent) {
  const a = parseAuthTag(tag)
  if (!isValidPubkey(agent)) throw new Error('invalid agent public key')
  if (a.owner === agent) throw new Error('self-attestation: owner and agent are the same key')
  const h = sha256(utf8('nostr:agent-auth:' + agent + ':' + a.raw))
  let ok = false
  try { ok = schnorr.verify(hexToBytes(a.sig), h, hexToBytes(a.owner)) } catch { ok = false }
  if (!ok) throw new Error(`invalid auth tag signature: signature by owner ${a.owner} does not match agent ${agent}`)
  return { ...a, agent }
}

/** findAuthTag is the event's single auth tag, or null for none or several (NIP-OA). */
export function findAuthTag (ev) {
  const found = (ev.tags || []).filter(t => Array.isArray(t) && t.length >= 1 && t[0] === 'auth')
  return found.length === 1 ? found[0] : null
}
