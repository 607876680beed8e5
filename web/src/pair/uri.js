// The NIP-AB v1 pairing URI (spec/pairing.md, "The URI"; pairing/uri.go):
// nostrpair://<source_pk>?secret=<hex>&relay=<url>[&relay=...][&pin=<pin>]&v=1
import { hexToBytes, isLowerHex } from '../keys/hex.js'
import { isValidPubkey } from '../keys/nipoa.js'

const SCHEME = 'nostrpair://'
const MAX_LENGTH = 2048

function bad (why) { return new Error('invalid pairing URI: ' + why) }

/** checkRelayURL throws unless r is a ws:// or wss:// URL with a host. */
export function checkRelayURL (r) {
  let u
  try { u = new URL(r) } catch { throw new Error(`relay ${JSON.stringify(r)} is not a URL`) }
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new Error(`relay ${JSON.stringify(r)}: want a ws:// or wss:// URL`)
  if (!u.hostname) throw new Error(`relay ${JSON.stringify(r)} has no host`)
}

function unescape (v, what) {
  try { return decodeURIComponent(v) } catch { throw bad(`${what} ${JSON.stringify(v)}: bad percent-encoding`) }
}

/**
 * parsePairURI reads a pairing URI strictly, as hive does: {sourcePk (hex),
 * secret (32 bytes), relays, pin}. It throws an Error starting "invalid
 * pairing URI:" (or "unsupported pairing protocol version; update hive").
 */
export function parsePairURI (s) {
  s = String(s || '').trim()
  if (s.length > MAX_LENGTH) throw bad(`${s.length} bytes, the limit is ${MAX_LENGTH}`)
  if (!s.startsWith(SCHEME)) throw bad(`it must start with ${SCHEME}`)
  const rest = s.slice(SCHEME.length)
  const q = rest.indexOf('?')
  if (q < 0) throw bad('no parameters (missing "?")')
  const sourcePk = rest.slice(0, q)
  if (!isLowerHex(sourcePk, 64)) throw bad('the public key must be 64 lowercase hex characters')
  if (!isValidPubkey(sourcePk)) throw bad(`${sourcePk} is not an x-coordinate on secp256k1`)
  const out = { sourcePk, secret: null, relays: [], pin: '' }
  const seen = new Set()
  for (const p of rest.slice(q + 1).split('&')) {
    const eq = p.indexOf('=')
    if (eq < 0) continue
    const k = p.slice(0, eq)
    const v = p.slice(eq + 1)
    if (k === 'secret' || k === 'v' || k === 'pin') {
      if (seen.has(k)) throw bad(`parameter "${k}" given twice`)
      seen.add(k)
    }
    if (k === 'secret') {
      if (!isLowerHex(v, 64)) throw bad('secret must be 64 lowercase hex characters')
      if (/^0+$/.test(v)) throw bad('the all-zero secret is refused')
      out.secret = hexToBytes(v)
    } else if (k === 'v') {
      if (!/^[0-9]+$/.test(v) || Number(v) > 4294967295) throw bad(`v=${JSON.stringify(v)} is not a version number`)
      if (Number(v) !== 1) throw new Error(`unsupported pairing protocol version; update hive: the code uses version ${Number(v)}, this client speaks version 1`)
    } else if (k === 'relay') {
      const r = unescape(v, 'relay')
      try { checkRelayURL(r) } catch (e) { throw bad(e.message) }
      out.relays.push(r)
    } else if (k === 'pin') {
      const pin = unescape(v, 'pin')
      if (!pin.startsWith('sha256/')) throw bad('pin must be sha256/<base64>')
      out.pin = pin
    }
  }
  if (!out.secret) throw bad('no secret')
  if (!out.relays.length) throw bad('no relay')
  return out
}

function escapeAll (s) {
  let out = ''
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b)
    out += /[A-Za-z0-9]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

/** encodePairURI spells a URI as the v1 encoder does (every byte but ASCII letters and digits percent-encoded, v=1 last). */
export function encodePairURI ({ sourcePk, secretHex, relays, pin = '' }) {
  let s = SCHEME + sourcePk + '?secret=' + secretHex
  for (const r of relays) s += '&relay=' + escapeAll(r)
  if (pin) s += '&pin=' + escapeAll(pin)
  return s + '&v=1'
}
