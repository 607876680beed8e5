// Pairing this browser as a new device (the NIP-AB v1 target; spec/pairing.md,
// "The exchange"): over the hub's /pair relay, the offer with this device's
// own new key, the 6-digit SAS for the page to show, then (both humans
// having said yes) the owner's attestation of the key. Like hive join it
// proves the key before answering complete: AUTH on the hub with the
// attestation and the device's kind 0 profile carrying it.
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { HubConnection } from '../hub/connection.js'
import { localSigner } from '../hub/signer.js'
import { deviceProfileEvent } from '../hub/send.js'
import { parsePairURI } from './uri.js'
import { parseBundle } from './bundle.js'
import { Ignored, PairingError, TargetSession, PAIRING_KIND, DEFAULT_TIMEOUT } from './session.js'

const RETRY = 200 // ms between offers while the source is not listening yet

// relayLink is one websocket to a pairing relay: one REQ for our #p, EVENTs with their OKs.
function relayLink (WS, url, pub, onevent) {
  return new Promise((resolve, reject) => {
    let ws
    try { ws = new WS(url) } catch (e) { reject(new Error(`hub unreachable: ${url}: ${e.message}`)); return }
    const oks = new Map()
    let ready = false
    const link = {
      url,
      closed: false,
      publish: ev => new Promise((resolve, reject) => {
        if (link.closed) { reject(new Error('pairing relay: connection lost')); return }
        oks.set(ev.id, { resolve, reject })
        ws.send(JSON.stringify(['EVENT', ev]))
      }),
      close () { link.closed = true; try { ws.close() } catch { /* closing */ } }
    }
    ws.onopen = () => ws.send(JSON.stringify(['REQ', 'pair', { kinds: [PAIRING_KIND], '#p': [pub] }]))
    ws.onerror = () => {}
    ws.onclose = () => {
      link.closed = true
      for (const w of oks.values()) w.reject(new Error('pairing relay: connection lost'))
      oks.clear()
      if (!ready) reject(new Error(`hub unreachable: cannot reach the pairing relay ${url}`))
      link.onlost?.()
    }
    ws.onmessage = m => {
      let msg
      try { msg = JSON.parse(typeof m.data === 'string' ? m.data : String(m.data)) } catch { return }
      if (!Array.isArray(msg)) return
      if (msg[0] === 'EOSE' && !ready) { ready = true; resolve(link) } else if (msg[0] === 'CLOSED' && !ready) {
        ready = true
        reject(new Error(`pairing relay: subscription refused: ${msg[2]}`))
        link.close()
      } else if (msg[0] === 'EVENT' && msg[1] === 'pair' && msg[2]) onevent(msg[2])
      else if (msg[0] === 'OK') {
        const w = oks.get(msg[1])
        if (!w) return
        oks.delete(msg[1])
        if (msg[2] === true) w.resolve()
        else w.reject(new Error(String(msg[3] || 'refused')))
      }
    }
  })
}

async function connectRelay (WS, relays, pub, onevent) {
  const errs = []
  for (const r of relays) {
    try { return await relayLink(WS, r, pub, onevent) } catch (e) { errs.push(e.message) }
  }
  throw new Error(errs.join('; '))
}

// offer publishes ev until the source listens (the relay answers "no live subscriber" before) or the deadline.
async function publishUntil (link, ev, deadline) {
  for (;;) {
    try { await link.publish(ev); return } catch (e) {
      if (!/no live subscriber/.test(e.message)) throw new Error('pairing relay: ' + e.message)
      if (Date.now() + RETRY >= deadline) throw new PairingError('pairing session expired: no source is listening for this code (it expired, or hive pair stopped)', 'timeout')
      await new Promise(r => setTimeout(r, RETRY))
    }
  }
}

// prove connects to the hub as the device with its attestation and publishes
// the device's profile (how the hub learns the device); it returns the connection.
async function prove (WS, b, sk, name, deadline) {
  const errs = []
  for (const url of b.hubs) {
    const conn = new HubConnection({ url, signer: localSigner(sk), authTag: b.auth, WebSocket: WS })
    let timer
    try {
      await Promise.race([conn.start(), new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`hub unreachable: ${url}`)), Math.max(1000, deadline - Date.now())) })])
      await conn.publish(deviceProfileEvent(name, b.auth))
      return conn
    } catch (e) {
      conn.close()
      if (e.name === 'HubError' && e.prefix) throw e // the hub answered and said no
      errs.push(e.message)
    } finally { clearTimeout(timer) }
  }
  throw new Error(errs.join('; '))
}

/**
 * joinPairing pairs this browser with the `hive pair` URI shown by the
 * owner. onSas(sas) shows the 6 digits; confirm(sas) resolves true when the
 * person says they match (false aborts). It resolves with {secretKey
 * (the device's own new key), pubkey, owner, auth, hubs, pin, expiresAt,
 * hub, connection (a connected HubConnection as the device)}; it rejects
 * with an Error whose message is spec/pairing.md's ("SAS mismatch: ...",
 * "the other device aborted the pairing: user_denied", "pairing session
 * expired ...", "invalid pairing URI: ...").
 */
export async function joinPairing ({ uri, name = 'browser', WebSocket, onSas = () => {}, confirm = () => Promise.resolve(true), onState = () => {}, timeout = DEFAULT_TIMEOUT, signal }) {
  const WS = WebSocket || globalThis.WebSocket
  const u = parsePairURI(uri)
  const secretKey = generateSecretKey()
  const pubkey = getPublicKey(secretKey)
  const s = new TargetSession(u, pubkey, { timeout })
  let link
  const inbox = []
  let wake = () => {}
  const push = ev => { inbox.push(ev); wake() }
  const send = async evs => { for (const ev of evs || []) await link.publish(ev).catch(() => {}) }
  // fail aborts with reason and throws err. The abort goes out twice, a
  // second apart: a source that handles it before our offer (relays and
  // client libraries may reorder deliveries) ignores it, as it must.
  const fail = async (err, reason) => {
    const ev = reason && s.abort(reason)
    if (ev) {
      await send([ev])
      await new Promise(r => setTimeout(r, 1000))
      await send([s.seal({ type: 'abort', reason })])
    }
    throw err
  }
  try {
    onState('connecting')
    link = await connectRelay(WS, u.relays, s.pub, push)
    link.onlost = () => wake()
    await publishUntil(link, s.offer, s.deadline)
    onState('sas')
    onSas(s.sas)
    let answer = null
    Promise.resolve(typeof confirm === 'function' ? confirm(s.sas) : confirm).then(v => { answer = v === true; wake() }, () => { answer = false; wake() })
    const aborted = () => signal && signal.aborted
    if (signal) signal.addEventListener('abort', () => wake(), { once: true })
    let payload = null
    while (!payload) {
      if (Date.now() >= s.deadline) await fail(new PairingError('pairing session expired'), 'timeout')
      if (aborted()) await fail(new PairingError('pairing cancelled: the code was not confirmed on this device'), 'user_denied')
      if (link.closed) throw new Error('pairing relay: connection lost')
      if (answer !== null && !s.localOK) {
        if (!answer) await fail(new PairingError('pairing cancelled: the code was not confirmed on this device'), 'user_denied')
        onState('confirmed')
        payload = s.confirmLocal().payload || null
        continue
      }
      const ev = inbox.shift()
      if (!ev) {
        await new Promise(resolve => { wake = resolve; setTimeout(resolve, Math.max(0, Math.min(1000, s.deadline - Date.now()))) })
        continue
      }
      try { payload = s.handle(ev).payload || null } catch (e) {
        if (e instanceof Ignored) continue
        await send(e.send)
        throw e
      }
    }
    onState('received')
    let result
    try {
      if (payload.payload_type !== 'custom') throw new Error(`payload type ${payload.payload_type} is not a device attestation (hive pair --transfer-key sends the owner's own key): run hive pair without --transfer-key, so this browser gets its own key`)
      const b = parseBundle(payload.payload, pubkey)
      onState('proving')
      const connection = await prove(WS, b, secretKey, name, s.deadline)
      result = { secretKey, pubkey, owner: b.owner, auth: b.auth, hubs: b.hubs, pin: b.pin, expiresAt: b.expiresAt, hub: connection.url, connection }
    } catch (e) {
      await send([s.complete(false)])
      throw e
    }
    await send([s.complete(true)])
    onState('done')
    return result
  } finally {
    if (link) link.close()
    s.close()
  }
}
