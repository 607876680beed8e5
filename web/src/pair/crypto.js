// NIP-AB v1 derivations (spec/pairing.md, "Derivations"; pairing/crypto.go):
// HKDF-SHA256 with output 32, the unhashed ECDH x-coordinate, the SAS and
// the transcript hash.
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hkdf } from '@noble/hashes/hkdf.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { hexToBytes, utf8, wipe } from '../keys/hex.js'

const hkdf32 = (ikm, salt, info) => hkdf(sha256, ikm, salt, utf8(info), 32)

/** sessionID = HKDF(session_secret, salt "", "nostr-pair-session-id"). */
export function sessionID (secret) { return hkdf32(secret, new Uint8Array(0), 'nostr-pair-session-id') }

/** ecdh is the unhashed 32-byte x-coordinate of sk · peer (peer an x-only hex key lifted with even y). */
export function ecdh (sk, peerHex) {
  const point = secp256k1.getSharedSecret(sk, hexToBytes('02' + peerHex), true)
  const x = point.slice(1, 33)
  wipe(point)
  return x
}

/** sasInput = HKDF(ecdh_shared, salt session_secret, "nostr-pair-sas-v1"). */
export function sasInput (shared, secret) { return hkdf32(shared, secret, 'nostr-pair-sas-v1') }

/** sasCode is the big-endian uint32 of sas_input[0..4] mod 1,000,000, six digits. */
export function sasCode (input) {
  const n = ((input[0] << 24) >>> 0) + (input[1] << 16) + (input[2] << 8) + input[3]
  return String(n % 1000000).padStart(6, '0')
}

/** transcriptHash = HKDF(session_id ‖ source_pk ‖ target_pk ‖ sas_input, salt session_secret, "nostr-pair-transcript-v1"). */
export function transcriptHash (sid, sourcePkHex, targetPkHex, input, secret) {
  const t = new Uint8Array(128)
  t.set(sid, 0)
  t.set(hexToBytes(sourcePkHex), 32)
  t.set(hexToBytes(targetPkHex), 64)
  t.set(input, 96)
  const h = hkdf32(t, secret, 'nostr-pair-transcript-v1')
  wipe(t)
  return h
}
