// Key formats for the web chat: nsec, ncryptsec (NIP-49), 64 hex, npub.
// No storage here (the page keeps keys in IndexedDB).
import * as nip19 from 'nostr-tools/nip19'
import * as nip49 from 'nostr-tools/nip49'
import { generateSecretKey as genKey, getPublicKey } from 'nostr-tools/pure'
import { bytesToHex, hexToBytes, isLowerHex } from './hex.js'
import { isValidPubkey } from './nipoa.js'

export { bytesToHex, hexToBytes, isLowerHex, isValidPubkey }
export * from './nipoa.js'

/** KeyError is a key that cannot be used; needsPassphrase says an ncryptsec needs one. */
export class KeyError extends Error {
  constructor (message, { needsPassphrase = false } = {}) {
    super(message)
    this.name = 'KeyError'
    this.needsPassphrase = needsPassphrase
  }
}

/** generateSecretKey is a fresh random secret key (32 bytes). */
export function generateSecretKey () { return genKey() }

/** publicKeyOf is the hex public key of a secret key (bytes or hex). */
export function publicKeyOf (sk) { return getPublicKey(toBytes(sk)) }

function toBytes (sk) {
  if (sk instanceof Uint8Array) return sk
  if (isLowerHex(String(sk).toLowerCase(), 64)) return hexToBytes(String(sk).toLowerCase())
  throw new KeyError('a secret key is 32 bytes or 64 hex characters')
}

/** decodeNsec reads an nsec1... into its 32 bytes. */
export function decodeNsec (s) {
  let d
  try { d = nip19.decode(s.trim()) } catch (e) { throw new KeyError(`not a valid nsec: ${e.message}`) }
  if (d.type !== 'nsec') throw new KeyError(`this is an ${d.type}, not an nsec`)
  return d.data
}

/** encodeNsec spells a secret key as nsec1.... */
export function encodeNsec (sk) { return nip19.nsecEncode(toBytes(sk)) }

/** decryptNcryptsec opens a NIP-49 ncryptsec1... with its passphrase. */
export function decryptNcryptsec (s, passphrase) {
  if (!passphrase) throw new KeyError('this key is encrypted (ncryptsec): give its passphrase', { needsPassphrase: true })
  try { return nip49.decrypt(s.trim(), passphrase) } catch (e) {
    throw new KeyError(`cannot open the ncryptsec: wrong passphrase or a damaged key (${e.message})`, { needsPassphrase: true })
  }
}

/** encryptNcryptsec seals a secret key under a passphrase (NIP-49, scrypt log_n 16). */
export function encryptNcryptsec (sk, passphrase, logn = 16) { return nip49.encrypt(toBytes(sk), passphrase, logn) }

/**
 * parseSecretKey reads what a person pastes: nsec1..., ncryptsec1... (with
 * passphrase) or 64 hex characters. It throws a KeyError naming the fix.
 */
export function parseSecretKey (text, passphrase) {
  const s = String(text || '').trim()
  const low = s.toLowerCase()
  if (low.startsWith('nsec1')) return decodeNsec(s)
  if (low.startsWith('ncryptsec1')) return decryptNcryptsec(s, passphrase)
  if (low.startsWith('npub1')) throw new KeyError('this is a public key (npub); paste the secret key (nsec1... or ncryptsec1...)')
  if (isLowerHex(low, 64)) return hexToBytes(low)
  throw new KeyError('not a key: paste an nsec1..., an ncryptsec1... or 64 hex characters')
}

/** encodeNpub spells a hex public key as npub1.... */
export function encodeNpub (hex) { return nip19.npubEncode(hex) }

/** decodeNpub reads an npub1... (or 64 hex) into the hex public key. */
export function decodeNpub (s) {
  const t = String(s || '').trim()
  if (isValidPubkey(t.toLowerCase())) return t.toLowerCase()
  let d
  try { d = nip19.decode(t) } catch (e) { throw new KeyError(`not a public key: ${e.message}`) }
  if (d.type !== 'npub') throw new KeyError(`this is an ${d.type}, not an npub`)
  return d.data
}

/**
 * shortNpub is how a key without a name is shown: npub1 and 7 more
 * characters, an ellipsis and the last 4 (spec/chat.md, "Names").
 */
export function shortNpub (pk) {
  let npub = ''
  try { npub = nip19.npubEncode(pk) } catch { npub = '' }
  if (npub.length < 20) return pk.length > 12 ? pk.slice(0, 12) + '…' : pk
  return npub.slice(0, 12) + '…' + npub.slice(-4)
}
