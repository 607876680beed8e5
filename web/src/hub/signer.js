// Signers: what signs, and opens NIP-44 messages, for the web chat. A local
// secret key, or a NIP-07 extension (window.nostr) passed in. Both have the
// same shape: {getPublicKey, signEvent, nip44Encrypt, nip44Decrypt}, all async.
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure'
import * as nip44 from 'nostr-tools/nip44'
import { hexToBytes, isLowerHex } from '../keys/hex.js'

/** localSigner signs with a secret key held in memory (Uint8Array or 64 hex). */
export function localSigner (secretKey) {
  const sk = typeof secretKey === 'string' && isLowerHex(secretKey, 64) ? hexToBytes(secretKey) : secretKey
  if (!(sk instanceof Uint8Array) || sk.length !== 32) throw new Error('localSigner: a secret key is 32 bytes or 64 hex characters')
  const pk = getPublicKey(sk)
  const keys = new Map() // peer -> conversation key
  const ck = peer => {
    let k = keys.get(peer)
    if (!k) { k = nip44.getConversationKey(sk, peer); keys.set(peer, k) }
    return k
  }
  return {
    local: true,
    async getPublicKey () { return pk },
    async signEvent (tpl) { return finalizeEvent({ kind: tpl.kind, created_at: tpl.created_at, tags: tpl.tags, content: tpl.content }, sk) },
    async nip44Encrypt (peer, text) { return nip44.encrypt(text, ck(peer)) },
    async nip44Decrypt (peer, ct) { return nip44.decrypt(ct, ck(peer)) }
  }
}

/** nip07Signer wraps a NIP-07 extension (window.nostr); NIP-44 needs its nip44 methods. */
export function nip07Signer (ext) {
  if (!ext || typeof ext.getPublicKey !== 'function' || typeof ext.signEvent !== 'function') {
    throw new Error('no NIP-07 extension: install one (it provides window.nostr), or pair this browser')
  }
  const need44 = () => {
    if (!ext.nip44) throw new Error('this NIP-07 extension has no NIP-44 (needed for agent transcripts): pair the browser instead')
    return ext.nip44
  }
  return {
    local: false,
    async getPublicKey () { return ext.getPublicKey() },
    async signEvent (tpl) { return ext.signEvent({ kind: tpl.kind, created_at: tpl.created_at, tags: tpl.tags, content: tpl.content }) },
    async nip44Encrypt (peer, text) { return need44().encrypt(peer, text) },
    async nip44Decrypt (peer, ct) { return need44().decrypt(peer, ct) }
  }
}
