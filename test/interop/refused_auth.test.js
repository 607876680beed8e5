// Clients after a refused AUTH: NDK (@nostr-dev-kit/ndk) and nostr-tools,
// pinned in package.json, against the real hive binary. A key the hub does
// not admit must learn why at once on its publish, REQ and COUNT, not wait
// to authenticate again until a timeout (NDK holds a publish answered
// auth-required: for a retry after AUTH). Always over SQLite: the hub's
// answer does not depend on the log, and the suite in hive.test.js has the
// PostgreSQL database of the second run to itself.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'

import WebSocket from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure'
import { npubEncode } from 'nostr-tools/nip19'
import NDK, { NDKEvent, NDKPrivateKeySigner, NDKRelaySet } from '@nostr-dev-kit/ndk'

import { closeHub, startSQLiteHub, withTimeout } from './harness.js'

useWebSocketImplementation(WebSocket)
globalThis.WebSocket ??= WebSocket // NDK uses the global one (Node 20 has none)

const adminPK = getPublicKey(generateSecretKey())
let hub
let dataDir
let url
const closers = []

before(async () => {
  // --invites off: with invites a stranger completes AUTH as a NIP-43 guest (nip43.test.js)
  ;({ hub, dataDir, url } = await startSQLiteHub('hive-interop-auth-', adminPK, ['--invites', 'off']))
})

after(() => closeHub(hub, dataDir, closers))

// refusedReason is what the hub must say to a stranger: restricted: and why.
function refusedReason(npub) {
  return new RegExp(`^restricted: .*${npub} is not a member of this hub`)
}

test('NDK 3: a non-member is told why at once on publish and on a subscription', async () => {
  const sk = generateSecretKey()
  const npub = npubEncode(getPublicKey(sk))
  const ndk = new NDK({ explicitRelayUrls: [url], signer: new NDKPrivateKeySigner(Buffer.from(sk).toString('hex')) })
  // true: NDK signs and sends the AUTH itself, and reports a refusal as
  // the relay's auth:failed event
  ndk.relayAuthDefaultPolicy = async () => true
  closers.push(() => {
    for (const r of ndk.pool.relays.values()) r.disconnect()
  })
  const relay = ndk.pool.getRelay(url, false)
  closers.push(() => relay.disconnect())
  const failed = new Promise((resolve) => relay.once('auth:failed', resolve))
  await withTimeout(ndk.connect(5_000), 8_000, 'NDK connect')
  const authErr = await withTimeout(failed, 8_000, 'NDK auth:failed')
  assert.match(authErr.message, refusedReason(npub))

  const ev = new NDKEvent(ndk, { kind: 1, content: 'hello from a stranger', tags: [] })
  await ev.sign()
  const relaySet = NDKRelaySet.fromRelayUrls([url], ndk)
  closers.push(() => {
    for (const r of relaySet.relays) r.disconnect()
  })
  const started = Date.now()
  await assert.rejects(withTimeout(ev.publish(relaySet, 4_000, 1), 8_000, 'NDK publish'), (err) => {
    console.log(`NDK publish refused after ${Date.now() - started} ms (its own timeout: 4000 ms)`)
    const reasons = [...(err.errors?.values() ?? [])].map((e) => e.message).join(' | ') || err.message
    assert.match(reasons, refusedReason(npub))
    return true
  })

  const closed = await withTimeout(
    new Promise((resolve) => {
      const sub = ndk.subscribe({ kinds: [1] }, { closeOnEose: true, relaySet })
      sub.on('closed', (_relay, reason) => resolve(reason))
    }),
    8_000,
    'NDK subscription CLOSED',
  )
  assert.match(closed, refusedReason(npub))
})

test('nostr-tools: after a refused AUTH, EVENT, REQ and COUNT get restricted: with the reason', async () => {
  const relay = await Relay.connect(url)
  closers.push(() => relay.close())
  const deadline = Date.now() + 5_000
  while (!relay.challenge && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
  const sk = generateSecretKey()
  const npub = npubEncode(getPublicKey(sk))
  await assert.rejects(withTimeout(relay.auth(async (t) => finalizeEvent(t, sk)), 5_000, 'AUTH answer'), (err) => {
    assert.match(err.message, refusedReason(npub))
    return true
  })
  const ev = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: 'x' }, sk)
  await assert.rejects(withTimeout(relay.publish(ev), 5_000, 'publish'), (err) => {
    assert.match(err.message, refusedReason(npub))
    return true
  })
  const reason = await withTimeout(
    new Promise((resolve) => relay.subscribe([{ kinds: [1] }], { onevent: () => {}, onclose: resolve })),
    5_000,
    'CLOSED',
  )
  assert.match(reason, refusedReason(npub))
  await assert.rejects(withTimeout(relay.count([{ kinds: [1] }], {}), 5_000, 'COUNT'), (err) => {
    assert.match(err.message, refusedReason(npub))
    return true
  })
})
