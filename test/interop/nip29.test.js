// NIP-29 groups as standard clients send them (flotilla's flow, as welshman
// writes its events), against the real hive binary: nostr-tools and NDK
// (both pinned in package.json). Always over SQLite: the answers do not
// depend on the log, and hive.test.js has the PostgreSQL run to itself.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'

import WebSocket from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure'
import NDK, { NDKEvent, NDKPrivateKeySigner, NDKRelaySet } from '@nostr-dev-kit/ndk'

import { closeHub, hubInfo, startSQLiteHub, withTimeout, authRelay } from './harness.js'

useWebSocketImplementation(WebSocket)
globalThis.WebSocket ??= WebSocket // NDK uses the global one (Node 20 has none)

const adminSK = generateSecretKey()
const adminPK = getPublicKey(adminSK)
let hub
let dataDir
let url
let self // NIP-11 self: the hub's key
const closers = []

before(async () => {
  ;({ hub, dataDir, url } = await startSQLiteHub('hive-interop-nip29-', adminPK))
  const doc = await hubInfo(url)
  assert.ok(doc.supported_nips.includes(29), `NIP-11 supported_nips ${doc.supported_nips} lists 29`)
  self = doc.self
  assert.match(self, /^[0-9a-f]{64}$/)
})

after(() => closeHub(hub, dataDir, closers))

const now = () => Math.floor(Date.now() / 1000)
const sign = (sk, kind, tags, content = '', at = now()) => finalizeEvent({ kind, created_at: at, tags, content }, sk)
const room = () => `r${randomBytes(5).toString('hex')}`

async function authed(sk) {
  const relay = await authRelay(Relay, url, (t) => finalizeEvent(t, sk))
  closers.push(() => relay.close())
  return relay
}

function query(relay, filter) {
  return withTimeout(
    new Promise((resolve, reject) => {
      const got = []
      let done = false
      const sub = relay.subscribe([filter], {
        onevent: (e) => got.push(e),
        oneose: () => {
          done = true
          resolve(got)
          sub.close()
        },
        onclose: (reason) => done || reject(new Error(`CLOSED ${reason}`)),
      })
    }),
    5_000,
    `query ${JSON.stringify(filter)}`,
  )
}

const flagsOf = (ev) => ev.tags.filter((t) => t.length === 1).map((t) => t[0])

test('nostr-tools: create with only h, name and make private with a 9002, 39000 carries the flags back', async () => {
  const relay = await authed(adminSK)
  const h = room()
  await withTimeout(relay.publish(sign(adminSK, 9007, [['h', h]])), 5_000, '9007 with only h')
  let [meta] = await query(relay, { kinds: [39000], '#d': [h] })
  assert.equal(meta.pubkey, self, '39000 is signed by NIP-11 self')
  assert.deepEqual(meta.tags.find((t) => t[0] === 'name'), ['name', h])
  assert.deepEqual(flagsOf(meta), [])
  // welshman's edit: name, about, the flags, then the old 39000's other tags
  const tags = [['h', h], ['name', 'Secret'], ['about', 'shh'], ['closed'], ['private']]
  for (const t of meta.tags) if (!tags.some((x) => x[0] === t[0])) tags.push(t)
  await withTimeout(relay.publish(sign(adminSK, 9002, tags)), 5_000, '9002 private')
  ;[meta] = await query(relay, { kinds: [39000], '#d': [h] })
  assert.deepEqual(meta.tags.find((t) => t[0] === 'name'), ['name', 'Secret'])
  assert.deepEqual(flagsOf(meta), ['private', 'closed', 'hidden', 'restricted'])
})

test('nostr-tools: a flag hive cannot honour is refused with the reason', async () => {
  const relay = await authed(adminSK)
  const h = room()
  await relay.publish(sign(adminSK, 9007, [['h', h]]))
  await assert.rejects(relay.publish(sign(adminSK, 9002, [['h', h], ['hidden']])), (err) => {
    assert.match(err.message, /^invalid: hive cannot make an open channel hidden: every hub member reads, writes and may join an open channel; send \["private"\]/)
    return true
  })
  await assert.rejects(relay.publish(sign(adminSK, 9002, [['h', h], ['livekit']])), /^Error: invalid: "livekit": hive has no live audio or video rooms/)
  const [meta] = await query(relay, { kinds: [39000], '#d': [h] })
  assert.deepEqual(flagsOf(meta), [], 'the refused edits changed nothing')
})

test('nostr-tools: after a 9008 no 39000-39002 is newer than it (flotilla stops listing the room)', async () => {
  const relay = await authed(adminSK)
  const h = room()
  await relay.publish(sign(adminSK, 9007, [['h', h]]))
  const [meta] = await query(relay, { kinds: [39000], '#d': [h] })
  const del = sign(adminSK, 9008, [['h', h]], '', meta.created_at + 1)
  await withTimeout(relay.publish(del), 5_000, '9008')
  // flotilla's rule: a room is listed unless its newest 9008 is newer than its 39000
  const evs = await query(relay, { kinds: [39000, 9008] })
  const metaAt = Math.max(...evs.filter((e) => e.kind === 39000 && e.tags.some((t) => t[0] === 'd' && t[1] === h)).map((e) => e.created_at))
  const deletedAt = Math.max(...evs.filter((e) => e.kind === 9008 && e.tags.some((t) => t[0] === 'h' && t[1] === h)).map((e) => e.created_at))
  assert.ok(deletedAt > metaAt, `9008 at ${deletedAt} is newer than the 39000 at ${metaAt}`)
  for (const e of await query(relay, { kinds: [39000, 39001, 39002], '#d': [h] })) {
    assert.ok(e.created_at < del.created_at, `kind ${e.kind} dated ${e.created_at}, not before the 9008`)
  }
})

test('nostr-tools: 19004 and 13534 are signed by self and name the members, the admin included', async () => {
  const relay = await authed(adminSK)
  const bobSK = generateSecretKey()
  const bob = getPublicKey(bobSK)
  await relay.publish(sign(adminSK, 8000, [['-'], ['p', bob]]))
  const asBob = await authed(bobSK)
  const [list] = await query(asBob, { kinds: [13534] })
  assert.equal(list.pubkey, self)
  assert.ok(list.tags.some((t) => t[0] === '-'), '13534 carries NIP-70 -')
  assert.deepEqual(list.tags.filter((t) => t[0] === 'member').map((t) => t[1]).sort(), [adminPK, bob].sort())
  // flotilla asks for 19004 by #p to learn whether the user may create rooms
  const [perm] = await query(asBob, { kinds: [19004], '#p': [bob] })
  assert.equal(perm.pubkey, self)
  assert.ok(perm.tags.some((t) => t[0] === 'p' && t[1] === adminPK))
})

test('NDK: creates a room with only h, makes it private, and a member outside it cannot read it', async () => {
  const ndk = new NDK({ explicitRelayUrls: [url], signer: new NDKPrivateKeySigner(Buffer.from(adminSK).toString('hex')) })
  ndk.relayAuthDefaultPolicy = async () => true
  closers.push(() => {
    for (const r of ndk.pool.relays.values()) r.disconnect()
  })
  const ndkRelay = ndk.pool.getRelay(url, false)
  const authedOnce = new Promise((resolve) => ndkRelay.once('authed', resolve))
  await withTimeout(ndk.connect(5_000), 8_000, 'NDK connect')
  await withTimeout(authedOnce, 8_000, 'NDK AUTH')
  const set = NDKRelaySet.fromRelayUrls([url], ndk)
  const h = room()
  const publish = async (kind, tags) => {
    const ev = new NDKEvent(ndk, { kind, tags, content: '', created_at: now() })
    await withTimeout(ev.publish(set), 8_000, `NDK publish kind ${kind}`)
  }
  await publish(9007, [['h', h]])
  await publish(9002, [['h', h], ['name', 'NDK room'], ['private']])
  await publish(9, [['h', h], ['-']])
  const metas = await withTimeout(ndk.fetchEvents({ kinds: [39000], '#d': [h] }, {}, set), 8_000, 'NDK fetch 39000')
  const meta = [...metas][0]
  assert.equal(meta.pubkey, self)
  assert.ok(meta.tags.some((t) => t[0] === 'private'))

  const carolSK = generateSecretKey()
  const admin = await authed(adminSK)
  await admin.publish(sign(adminSK, 8000, [['-'], ['p', getPublicKey(carolSK)]]))
  const carol = await authed(carolSK)
  await assert.rejects(query(carol, { kinds: [9], '#h': [h] }), /CLOSED restricted: /)
})
