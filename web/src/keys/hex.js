// Hex helpers shared by every module (no DOM, no Node APIs).
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'

export { bytesToHex, hexToBytes }

/** isLowerHex reports whether s is exactly n lowercase hex characters. */
export function isLowerHex (s, n) {
  return typeof s === 'string' && s.length === n && /^[0-9a-f]*$/.test(s)
}

/** utf8 encodes a string as UTF-8 bytes. */
export function utf8 (s) { return new TextEncoder().encode(s) }

/** equalBytes compares two byte arrays in time independent of where they differ. */
export function equalBytes (a, b) {
  if (a.length !== b.length) return false
  let d = 0
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i]
  return d === 0
}

/** wipe zeroes a byte array in place. */
export function wipe (b) { if (b) b.fill(0) }
