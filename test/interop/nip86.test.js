// NIP-86 administration as standard clients call it, against the real hive
// binary: the Authorization header is nostr-tools' NIP-98 token (getToken,
// with the body's hash as its payload), or NDK's signed HttpAuth event; the
// request is welshman's (the relay URL with ws replaced by http, POST,
// application/nostr+json+rpc).
// Over SQLite, like nip29.test.js.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'

import WebSocket from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure'
import { getToken } from 'nostr-tools/nip98'
import * as nip19 from 'nostr-tools/nip19'
import NDK, { NDKEvent, NDKKind, NDKPrivateKeySigner } from '@nostr-dev-kit/ndk'
import { createHash } from 'node:crypto'

import { closeHub, startSQLiteHub, authRelay } from './harness.js'

useWebSocketImplementation(WebSocket)

const adminSK = generateSecretKey()
const adminPK = getPublicKey(adminSK)
let hub
let dataDir
let url
let httpURL

before(async () => {
  ;({ hub, dataDir, url } = await startSQLiteHub('hive-interop-nip86-', adminPK))
  httpURL = url.replace(/^ws/, 'http')
})

after(() => closeHub(hub, dataDir))

// manage calls method as sk the way a NIP-86 client does; it returns the
// HTTP status and the parsed answer.
async function manage (sk, method, params = []) {
  const request = { method, params }
  const authorization = await getToken(httpURL, 'POST', (e) => finalizeEvent(e, sk), true, request)
  const res = await fetch(httpURL, {
    method: 'POST',
    body: JSON.stringify(request),
    headers: { 'Content-Type': 'application/nostr+json+rpc', Authorization: authorization },
  })
  return { status: res.status, cors: res.headers.get('access-control-allow-origin'), ...(await res.json()) }
}

// canAuth reports whether sk is admitted: its AUTH is OK true without the
// reason a guest's OK carries (NIP-43: a key that is not a member is a guest).
async function canAuth (sk) {
  const relay = await authRelay(Relay, url, (t) => finalizeEvent(t, sk))
  relay.close()
  if (relay.authMessage === '') return true
  if (/is not a member of this hub/.test(relay.authMessage)) return false
  throw new Error(`AUTH answered ${relay.authMessage}`)
}

test('the CORS preflight of a NIP-86 call is answered', async () => {
  const res = await fetch(httpURL, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.flotilla.social', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
  })
  assert.equal(res.status, 204)
  assert.equal(res.headers.get('access-control-allow-origin'), '*')
  assert.match(res.headers.get('access-control-allow-methods'), /POST/)
  assert.match(res.headers.get('access-control-allow-headers'), /Authorization/)
  assert.match(res.headers.get('access-control-allow-headers'), /Content-Type/)
})

test('the admin lists the methods, allows and disallows a key', async () => {
  const sup = await manage(adminSK, 'supportedmethods')
  assert.equal(sup.status, 200, sup.error)
  assert.equal(sup.cors, '*')
  assert.deepEqual(sup.result, ['allowpubkey', 'changerelaydescription', 'changerelayicon', 'changerelayname',
    'disallowpubkey', 'listallowedpubkeys', 'supportedmethods', 'unallowpubkey'])

  const bobSK = generateSecretKey()
  const bobPK = getPublicKey(bobSK)
  assert.equal(await canAuth(bobSK), false)
  const allow = await manage(adminSK, 'allowpubkey', [bobPK, 'teammate'])
  assert.deepEqual([allow.status, allow.result, allow.error], [200, true, undefined])
  assert.equal(await canAuth(bobSK), true)
  const list = await manage(adminSK, 'listallowedpubkeys')
  assert.deepEqual(list.result.map((r) => r.pubkey).sort(), [adminPK, bobPK].sort())

  const disallow = await manage(adminSK, 'unallowpubkey', [bobPK])
  assert.deepEqual([disallow.status, disallow.result], [200, true])
  assert.equal(await canAuth(bobSK), false)
})

test('the hub name changes in NIP-11', async () => {
  const r = await manage(adminSK, 'changerelayname', ['Team hub'])
  assert.equal(r.status, 200, r.error)
  const doc = await (await fetch(httpURL, { headers: { Accept: 'application/nostr+json' } })).json()
  assert.equal(doc.name, 'Team hub')
})

test('a non-admin and a method hive does not do are refused with the reason', async () => {
  const strangerSK = generateSecretKey()
  const r = await manage(strangerSK, 'supportedmethods')
  assert.equal(r.status, 403)
  assert.equal(r.result, null)
  assert.match(r.error, /^restricted: npub1\w+ is not a hub admin; NIP-86 calls are for hub admins and their paired devices$/)
  const ban = await manage(adminSK, 'banpubkey', [getPublicKey(strangerSK), 'spam'])
  assert.equal(ban.status, 400)
  assert.equal(ban.error, 'invalid: method "banpubkey": hive does not do it (supportedmethods lists what it does)')
})

test('an authorization for another URL is refused', async () => {
  const request = { method: 'supportedmethods', params: [] }
  const authorization = await getToken('https://elsewhere.example/', 'POST', (e) => finalizeEvent(e, adminSK), true, request)
  const res = await fetch(httpURL, {
    method: 'POST',
    body: JSON.stringify(request),
    headers: { 'Content-Type': 'application/nostr+json+rpc', Authorization: authorization },
  })
  const body = await res.json()
  assert.equal(res.status, 401)
  assert.equal(body.error, `invalid: NIP-98: the authorization's u "https://elsewhere.example/" is not this hub's URL (${httpURL})`)
})

// manageNDK is manage with the authorization an NDK app makes: NDK has no
// NIP-98 helper, so an NDKEvent of its HttpAuth kind (27235) with the u,
// method and payload tags NIP-98 names, signed by NDK's signer.
async function manageNDK (sk, method, params = []) {
  const body = JSON.stringify({ method, params })
  const ndk = new NDK({ signer: new NDKPrivateKeySigner(Buffer.from(sk).toString('hex')) })
  const ev = new NDKEvent(ndk, {
    kind: NDKKind.HttpAuth,
    created_at: Math.floor(Date.now() / 1000),
    content: '',
    tags: [['u', httpURL], ['method', 'POST'], ['payload', createHash('sha256').update(body).digest('hex')]],
  })
  await ev.sign()
  const authorization = 'Nostr ' + Buffer.from(JSON.stringify(ev.rawEvent())).toString('base64')
  const res = await fetch(httpURL, {
    method: 'POST',
    body,
    headers: { 'Content-Type': 'application/nostr+json+rpc', Authorization: authorization },
  })
  return { status: res.status, ...(await res.json()) }
}

test('NDK: the admin allows a key and lists it; a non-admin is refused with the reason', async () => {
  const carolSK = generateSecretKey()
  const carolPK = getPublicKey(carolSK)
  const allow = await manageNDK(adminSK, 'allowpubkey', [carolPK, 'added from NDK'])
  assert.deepEqual([allow.status, allow.result, allow.error], [200, true, undefined])
  assert.equal(await canAuth(carolSK), true)
  const list = await manageNDK(adminSK, 'listallowedpubkeys')
  assert.equal(list.status, 200, list.error)
  assert.ok(list.result.some((r) => r.pubkey === carolPK), JSON.stringify(list.result))

  const refused = await manageNDK(carolSK, 'allowpubkey', [getPublicKey(generateSecretKey())])
  assert.equal(refused.status, 403)
  assert.equal(refused.result, null)
  assert.equal(refused.error, `restricted: ${nip19.npubEncode(carolPK)} is not a hub admin; NIP-86 calls are for hub admins and their paired devices`)
})
