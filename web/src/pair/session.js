// The joining side of NIP-AB v1 as a pure state machine (spec/pairing.md,
// "States", "Receiver checks"; pairing/session.go and target.go): it builds
// the offer, checks every event in the spec's order, silently ignores what
// does not fit, verifies the transcript hash in constant time, and releases
// the payload only when the transcript checked out AND this side's human
// confirmed (dual consent), whichever came first.
import { finalizeEvent, getPublicKey, generateSecretKey, verifyEvent } from 'nostr-tools/pure'
import * as nip44 from 'nostr-tools/nip44'
import { bytesToHex, equalBytes, hexToBytes, isLowerHex, wipe } from '../keys/hex.js'
import { isValidPubkey } from '../keys/nipoa.js'
import { ecdh, sasCode, sasInput, sessionID, transcriptHash } from './crypto.js'

/** PAIRING_KIND is NIP-AB's event kind. */
export const PAIRING_KIND = 24134
/** DEFAULT_TIMEOUT is a session's lifetime (ms). */
export const DEFAULT_TIMEOUT = 120000
const MAX_JITTER = 30
const REASONS = ['sas_mismatch', 'user_denied', 'timeout', 'protocol_error']
const PAYLOAD_TYPES = ['nsec', 'bunker', 'connect', 'custom']

/** Ignored marks an event the session discards silently. */
export class Ignored extends Error {}

/** PairingError is how a pairing ended badly; reason is the abort reason when there is one. */
export class PairingError extends Error {
  constructor (message, reason = '') { super(message); this.name = 'PairingError'; this.reason = reason }
}

function decodeMessage (plain) {
  if (new TextEncoder().encode(plain).length > 65535) throw new Ignored('plaintext too long')
  let m
  try { m = JSON.parse(plain) } catch { throw new Ignored('not JSON') }
  if (!m || typeof m !== 'object') throw new Ignored('not an object')
  switch (m.type) {
    case 'sas-confirm':
      if (!isLowerHex(m.transcript_hash, 64)) throw new Ignored('sas-confirm transcript_hash')
      break
    case 'payload':
      if (!PAYLOAD_TYPES.includes(m.payload_type) || typeof (m.payload ?? '') !== 'string') throw new Ignored('payload_type')
      break
    case 'abort':
      if (!REASONS.includes(m.reason)) m.reason = 'protocol_error'
      break
    case 'offer': case 'complete': break // out of order for a target
    default: throw new Ignored(`unknown type ${m.type}`)
  }
  return m
}

/** TargetSession is one pairing session of the joining device. */
export class TargetSession {
  constructor (uri, devicePub, { timeout = DEFAULT_TIMEOUT, now = () => Date.now(), ephemeralKey } = {}) {
    this.now = now
    this.deadline = now() + timeout
    this.sk = ephemeralKey || generateSecretKey()
    this.pub = getPublicKey(this.sk)
    this.secret = new Uint8Array(uri.secret)
    this.sid = sessionID(this.secret)
    this.peer = uri.sourcePk
    this.conv = nip44.getConversationKey(this.sk, this.peer)
    const shared = ecdh(this.sk, this.peer)
    this.sasIn = sasInput(shared, this.secret)
    wipe(shared)
    this.sas = sasCode(this.sasIn)
    this.state = 'confirming'
    this.processed = new Set()
    this.transcriptOK = false
    this.localOK = false
    this.payload = null
    this.offer = this.seal({ type: 'offer', version: 1, session_id: bytesToHex(this.sid), device_pubkey: devicePub })
  }

  seal (msg) {
    const content = nip44.encrypt(JSON.stringify(msg), this.conv)
    const jitter = Math.floor(Math.random() * (MAX_JITTER + 1))
    return finalizeEvent({ kind: PAIRING_KIND, created_at: Math.floor(this.now() / 1000) - jitter, tags: [['p', this.peer]], content }, this.sk)
  }

  done () { return this.state === 'completed' || this.state === 'aborted' }

  expired () {
    if (this.done()) return false
    if (this.now() >= this.deadline) { this.state = 'aborted'; this.timedOut = true; return true }
    return false
  }

  /**
   * handle takes one event from the pairing relay: {send: [events], payload}
   * (payload once released). It throws Ignored for what it discards, and a
   * PairingError when the pairing ends (abort, mismatch, expiry).
   */
  handle (ev) {
    if (this.expired()) throw new PairingError('pairing session expired', 'timeout')
    if (this.done()) throw new Ignored(`session is ${this.state}`)
    if (!ev || this.processed.has(ev.id)) throw new Ignored('already processed')
    if (ev.kind !== PAIRING_KIND) throw new Ignored('kind')
    if (!isValidPubkey(ev.pubkey)) throw new Ignored('pubkey')
    if (!verifyEvent({ ...ev })) throw new Ignored('id or signature')
    if (!(ev.tags || []).some(t => t.length >= 2 && t[0] === 'p' && t[1] === this.pub)) throw new Ignored('no p tag naming me')
    const n = (ev.content || '').length
    if (n < 132 || n > 87472) throw new Ignored('content length')
    if (ev.pubkey !== this.peer) throw new Ignored('not from the peer')
    let plain
    try { plain = nip44.decrypt(ev.content, this.conv) } catch { throw new Ignored('nip44') }
    const m = decodeMessage(plain)
    const res = this.step(m) // throws Ignored for out of order: the id stays unrecorded
    this.processed.add(ev.id)
    return res
  }

  step (m) {
    if (m.type === 'abort') {
      this.state = 'aborted'
      throw new PairingError('the other device aborted the pairing: ' + m.reason, m.reason)
    }
    if (m.type === 'sas-confirm' && this.state === 'confirming') {
      const want = transcriptHash(this.sid, this.peer, this.pub, this.sasIn, this.secret)
      const ok = equalBytes(hexToBytes(m.transcript_hash), want)
      wipe(want)
      if (!ok) {
        this.state = 'aborted'
        this.payload = null // an early payload is discarded unread
        const err = new PairingError('SAS mismatch: the other device derived different keys', 'sas_mismatch')
        err.send = [this.seal({ type: 'abort', reason: 'sas_mismatch' })]
        throw err
      }
      this.transcriptOK = true
      this.state = this.localOK ? 'transferring' : 'awaiting-confirmation'
      return this.release()
    }
    if (m.type === 'payload' && !this.payload) {
      this.payload = { payload_type: m.payload_type, payload: m.payload ?? '' }
      return this.release()
    }
    throw new Ignored(`${m.type} is out of order in state ${this.state}`)
  }

  /** confirmLocal records this side's human "yes"; it may release the payload. */
  confirmLocal () {
    if (this.expired()) throw new PairingError('pairing session expired', 'timeout')
    if (this.localOK || (this.state !== 'confirming' && this.state !== 'awaiting-confirmation')) throw new PairingError(`confirm in state ${this.state}`)
    this.localOK = true
    if (this.state === 'awaiting-confirmation') this.state = 'transferring'
    return this.release()
  }

  release () {
    if (!this.transcriptOK || !this.localOK || !this.payload || this.state !== 'transferring') return { send: [] }
    this.state = 'payload-exchanged'
    return { send: [], payload: this.payload }
  }

  /** complete builds the complete{success} answer once the payload was used. */
  complete (success) {
    if (this.state !== 'payload-exchanged') throw new PairingError(`complete in state ${this.state}`)
    const ev = this.seal({ type: 'complete', success })
    this.state = success ? 'completed' : 'aborted'
    return ev
  }

  /** abort ends the session and returns the abort event to send (null when none is due). */
  abort (reason) {
    this.expired()
    if (this.state === 'completed' || (this.state === 'aborted' && !(this.timedOut && reason === 'timeout' && !this.timeoutSent))) return null
    this.state = 'aborted'
    if (reason === 'timeout') this.timeoutSent = true
    return this.seal({ type: 'abort', reason })
  }

  /** close wipes the session's secrets. */
  close () {
    for (const b of [this.sk, this.secret, this.sid, this.conv, this.sasIn]) wipe(b)
    this.payload = null
    if (!this.done()) this.state = 'aborted'
  }
}
