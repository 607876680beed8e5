// NIP-43 invites as flotilla uses them (welshman's events, sent here with
// nostr-tools, pinned in package.json), against the real hive binary: the
// admin asks for a claim with a REQ for kind 28935 ({kinds:[28935],
// limit:1}, as flotilla's requestRelayClaim); a new key AUTHs first (OK
// true: flotilla's join flow gives up on OK false), sends a 28934 with only
// a claim tag, and is a member on the same connection, listed in the
// hub-signed 13534. A used-up, an expired, a forged and an empty claim are
// refused with their reasons. Always over SQLite (hive.test.js has the
// PostgreSQL run to itself).
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'

import WebSocket from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { generateSecretKey, getPublicKey, finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import { npubEncode } from 'nostr-tools/nip19'

import { closeHub, hubInfo, startSQLiteHub, withTimeout } from './harness.js'

useWebSocketImplementation(WebSocket)

const adminSK = generateSecretKey()
const adminPK = getPublicKey(adminSK)
let hub
let dataDir
let url
let self // NIP-11 self: the hub's key, which signs claims and the member list
const closers = []

before(async () => {
  ;({ hub, dataDir, url } = await startSQLiteHub('hive-interop-nip43-', adminPK))
  const doc = await hubInfo(url)
  assert.ok(doc.supported_nips.includes(43), `NIP-11 supported_nips ${doc.supported_nips} lists 43`)
  self = doc.self
})

after(() => closeHub(hub, dataDir, closers))

const now = () => Math.floor(Date.now() / 1000)
const sign = (sk, kind, tags, content = '') => finalizeEvent({ kind, created_at: now(), tags, content }, sk)

// connect opens a relay and AUTHs as sk; it returns the relay and the OK's message.
async function connect(sk) {
  const relay = await Relay.connect(url)
  closers.push(() => relay.close())
  const deadline = Date.now() + 5_000
  while (!relay.challenge) {
    if (Date.now() > deadline) throw new Error('no AUTH challenge')
    await new Promise((r) => setTimeout(r, 10))
  }
  const msg = await withTimeout(relay.auth((t) => finalizeEvent(t, sk)), 5_000, 'AUTH')
  return { relay, msg }
}

// query collects a REQ's events until EOSE; it rejects with a CLOSED reason.
function query(relay, filters) {
  return withTimeout(
    new Promise((resolve, reject) => {
      const evs = []
      const sub = relay.subscribe(filters, {
        onevent: (e) => evs.push(e),
        oneose: () => {
          resolve(evs)
          sub.close()
        },
        onclose: (reason) => reject(new Error(reason)),
      })
    }),
    5_000,
    `REQ ${JSON.stringify(filters)}`,
  )
}

// claimOf asks the hub for a claim as flotilla does and checks its signer.
async function claimOf(relay, filter = {}) {
  const evs = await query(relay, [{ kinds: [28935], limit: 1, ...filter }])
  assert.equal(evs.length, 1)
  assert.equal(evs[0].pubkey, self)
  assert.ok(verifyEvent(evs[0]))
  const claim = evs[0].tags.find((t) => t[0] === 'claim')?.[1]
  assert.ok(claim)
  return { claim, expiration: Number(evs[0].tags.find((t) => t[0] === 'expiration')?.[1]) }
}

// join sends a stranger's join request as flotilla writes it (only a claim tag).
async function join(sk, claim) {
  const { relay, msg } = await connect(sk)
  assert.match(msg, new RegExp(`^restricted: ${npubEncode(getPublicKey(sk))} is not a member of this hub; join with an invite from a hub admin`))
  return { relay, ok: withTimeout(relay.publish(sign(sk, 28934, [['claim', claim]])), 5_000, 'join OK') }
}

test('an invite claim admits a new key as flotilla joins: AUTH, then a 28934 with the claim', async () => {
  const { relay: admin } = await connect(adminSK)
  const { claim } = await claimOf(admin)
  const sk = generateSecretKey()
  const { relay, ok } = await join(sk, claim)
  assert.equal(await ok, `info: welcome to ${url}!`)
  // a member on the same connection: reads, and is in the hub-signed 13534
  const lists = await query(relay, [{ kinds: [13534] }])
  const list = lists.sort((a, b) => b.created_at - a.created_at)[0]
  assert.equal(list.pubkey, self)
  const members = list.tags.filter((t) => t[0] === 'member').map((t) => t[1])
  assert.ok(members.includes(getPublicKey(sk)), 'the new key is listed')
  assert.ok(members.includes(adminPK), 'the admin is listed')
  const adds = await query(admin, [{ kinds: [8000], '#p': [getPublicKey(sk)] }])
  assert.equal(adds.length, 1)
  assert.equal(adds[0].pubkey, self)
  assert.deepEqual(adds[0].tags.find((t) => t[0] === 'issuer'), ['issuer', adminPK])
  // flotilla sends a join request on opening a space: a member is told so, OK true
  assert.equal(await withTimeout(relay.publish(sign(sk, 28934, [['claim', '']])), 5_000, 'member join'), 'duplicate: you are already a member of this hub')

  // the one use is spent
  const { ok: again } = await join(generateSecretKey(), claim)
  await assert.rejects(again, { message: 'restricted: that invite code has been used 1 of 1 times; ask for a new one' })
})

test('a forged, an empty and an expired claim are refused with their reasons', async () => {
  const { relay: admin } = await connect(adminSK)
  const { claim } = await claimOf(admin)
  const forged = claim.slice(0, 30) + (claim[30] === 'A' ? 'B' : 'A') + claim.slice(31)
  await assert.rejects((await join(generateSecretKey(), forged)).ok, { message: 'restricted: that is not a valid invite code for this hub' })
  // flotilla ignores a refusal naming "invite code" when it sent no claim
  await assert.rejects((await join(generateSecretKey(), '')).ok, {
    message: 'restricted: a join request needs an invite code (its claim tag); ask a hub member for an invite link',
  })
  const short = await claimOf(admin, { '#x': ['1'] })
  await new Promise((r) => setTimeout(r, (short.expiration + 1) * 1000 - Date.now())) // past its explicit expiration
  const when = new Date(short.expiration * 1000).toISOString().replace('.000Z', 'Z')
  await assert.rejects((await join(generateSecretKey(), short.claim)).ok, { message: `restricted: that invite code expired at ${when}; ask for a new one` })
})

test('a guest is refused everything but its join request, with the reason its AUTH carried', async () => {
  const sk = generateSecretKey()
  const { relay, msg } = await connect(sk)
  await assert.rejects(query(relay, [{ kinds: [9] }]), { message: msg })
  await assert.rejects(query(relay, [{ kinds: [28935], limit: 1 }]), { message: msg })
  await assert.rejects(withTimeout(relay.publish(sign(sk, 1, [], 'hi')), 5_000, 'publish'), { message: msg })
})
