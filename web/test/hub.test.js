// The hub connection (web/src/hub) against the real hive serve: NIP-42
// AUTH, refusals with the hub's reason, publish with OK, subscriptions with
// EOSE, and reconnecting with catch-up after kill -9 with nothing doubled.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import WebSocket from 'ws'
import { generalHub, device, stallingProxy, waitFor } from './lib/hub.js'
import { HubConnection } from '../src/hub/connection.js'
import { localSigner, nip07Signer } from '../src/hub/signer.js'
import { finalizeEvent } from 'nostr-tools/pure'
import * as nip44 from 'nostr-tools/nip44'
import { generateSecretKey, encodeNpub, publicKeyOf } from '../src/keys/index.js'

let hub, alice, bob
before(async () => { ({ hub, alice, bob } = await generalHub()) })
after(() => hub?.stop())

test('a key that is not a member is refused with the hub reason, once, without retrying', async () => {
  const sk = generateSecretKey()
  const c = new HubConnection({ url: hub.url, signer: localSigner(sk), WebSocket })
  const states = []
  c.on('state', s => states.push(s.state))
  await assert.rejects(c.start(), e => {
    assert.match(e.reason, /^restricted: /)
    assert.ok(e.reason.includes(encodeNpub(publicKeyOf(sk))), e.reason)
    assert.ok(e.reason.includes('is not a member of this hub'), e.reason)
    return true
  })
  assert.deepEqual(states, ['connecting', 'authenticating', 'refused'])
  await assert.rejects(c.publish({ kind: 9, tags: [['h', 'general']], content: 'x' }), /not a member/)
})

test('publish resolves on OK with the ms tag; the other member reads it; a live subscription gets the CLI message', async () => {
  const c = await hub.connect(alice.sk)
  assert.equal(c.state, 'connected')
  assert.equal(c.member, alice.pk)
  const got = []
  let eosed = false
  c.subscribe([{ kinds: [9], '#h': ['general'] }], { onevent: ev => got.push(ev), oneose: () => { eosed = true } })
  await waitFor(() => eosed, 10000, 'EOSE')
  const ev = await c.publish({ kind: 9, tags: [['h', 'general']], content: 'hello from the browser' })
  assert.equal(ev.pubkey, alice.pk)
  assert.match(ev.tags.find(t => t[0] === 'ms')[1], /^(0|[1-9][0-9]{0,2})$/)
  const read = JSON.parse((await hub.as(bob, ['read', 'general', '--json'])).trim().split('\n').pop())
  assert.equal(read.id, ev.id)
  assert.equal(read.text, 'hello from the browser')
  await hub.as(bob, ['send', 'general', 'hello from bob'])
  await waitFor(() => got.some(e => e.content === 'hello from bob'), 10000, "bob's message live")
  assert.deepEqual(got.map(e => e.content), ['hello from the browser', 'hello from bob'])
  const stored = await c.query([{ kinds: [9], '#h': ['general'] }])
  assert.deepEqual(stored.map(e => e.content).sort(), ['hello from bob', 'hello from the browser'])
  const order = [...stored].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
  assert.deepEqual(stored, order, 'query: stored events oldest first (created_at, then id)')
})

test('a refused publish rejects with the hub reason', async () => {
  const c = await hub.connect(bob.sk)
  await assert.rejects(c.publish({ kind: 40099, tags: [['h', 'general']], content: '{}' }), e => {
    assert.equal(e.prefix, 'restricted')
    assert.match(e.reason, /^restricted: .*40099/)
    return true
  })
  await assert.rejects(c.query([{ kinds: [30078], authors: [alice.pk] }]), e => {
    assert.match(e.reason, /^restricted: /)
    return true
  })
})

test('after kill -9 and a restart: reconnect, catch up what was sent meanwhile (after an event dated ahead), nothing doubled', async () => {
  const reader = await hub.connect(bob.sk, { minBackoff: 4000, maxBackoff: 4000 })
  const writer = await hub.connect(alice.sk)
  const states = []
  reader.on('state', s => states.push(s.state))
  const got = []
  let eosed = false
  reader.subscribe([{ kinds: [9], '#h': ['general'] }], { onevent: ev => got.push(ev), oneose: () => { eosed = true } })
  await waitFor(() => eosed, 10000, 'EOSE')
  const ahead = await writer.publish({ kind: 9, tags: [['h', 'general']], content: 'dated five minutes ahead', created_at: Math.floor(Date.now() / 1000) + 300 })
  await waitFor(() => got.some(e => e.id === ahead.id), 10000, 'the future-dated message')
  await hub.kill9()
  await waitFor(() => reader.state === 'reconnecting', 10000, 'reconnecting')
  assert.ok(reader.stateInfo.retryAt > Date.now() - 1000, 'reconnecting says when it tries next')
  await assert.rejects(reader.query([{ kinds: [9], '#h': ['general'] }], { timeout: 300 }), /^HubError: hub unreachable: the query got no answer within 300 ms$/)
  await hub.start()
  const missed = await writer.publish({ kind: 9, tags: [['h', 'general']], content: 'sent while the reader was away' }, { timeout: 30000 })
  await waitFor(() => got.some(e => e.id === missed.id), 30000, 'the message sent during the drop')
  assert.equal(reader.state, 'connected')
  assert.ok(states.includes('reconnecting') && states.at(-1) === 'connected', states.join(' '))
  const ids = got.map(e => e.id)
  assert.equal(new Set(ids).size, ids.length, 'an event delivered twice: ' + got.map(e => e.content).join(' | '))
  const all = await reader.query([{ kinds: [9], '#h': ['general'] }])
  assert.deepEqual([...ids].sort(), all.map(e => e.id).sort(), 'the subscription holds every stored message once')
})

test('a live subscription bounded by since still gets a new message dated behind it (a slow clock), first and after a reconnect', async () => {
  const reader = await hub.connect(bob.sk, { minBackoff: 200, maxBackoff: 400 })
  const writer = await hub.connect(alice.sk)
  const got = []
  let eosed = false
  const since = Math.floor(Date.now() / 1000) - 5
  reader.subscribe([{ kinds: [9], '#h': ['general'], since }], { onevent: ev => got.push(ev), oneose: () => { eosed = true } })
  await waitFor(() => eosed, 10000, 'EOSE')
  const old = await writer.publish({ kind: 9, tags: [['h', 'general']], content: 'from a clock a minute slow', created_at: Math.floor(Date.now() / 1000) - 60 })
  await waitFor(() => got.some(e => e.id === old.id), 10000, 'the message dated a minute behind')
  await hub.kill9()
  await waitFor(() => reader.state === 'reconnecting', 10000, 'reconnecting')
  await hub.start()
  await waitFor(() => reader.state === 'connected', 30000, 'connected again')
  const older = await writer.publish({ kind: 9, tags: [['h', 'general']], content: 'from a clock two minutes slow', created_at: Math.floor(Date.now() / 1000) - 120 }, { timeout: 30000 })
  await waitFor(() => got.some(e => e.id === older.id), 10000, 'the message dated two minutes behind, after the reconnect')
  const ids = got.map(e => e.id)
  assert.equal(new Set(ids).size, ids.length, 'an event delivered twice')
})

test('a revoked device is cut off with the hub reason and does not retry', async () => {
  const d = await device(hub, alice, 'old-phone')
  const states = []
  d.conn.on('state', s => states.push(s))
  const live = []
  d.conn.subscribe([{ kinds: [9], '#h': ['general'] }], { onevent: ev => live.push(ev) })
  await hub.as(alice, ['device', 'revoke', '--device', d.pk])
  const refused = await waitFor(() => states.find(s => s.state === 'refused'), 10000, 'the refusal')
  assert.match(refused.reason, /^restricted: /)
  assert.match(refused.reason, /revoked/)
  await new Promise(r => setTimeout(r, 1000))
  assert.deepEqual(states.map(s => s.state), ['refused'], 'no reconnect after the cut-off')
  await assert.rejects(d.conn.publish({ kind: 9, tags: [['h', 'general']], content: 'after the revocation' }), /revoked/)
  const again = new HubConnection({ url: hub.url, signer: localSigner(d.sk), authTag: d.authTag, WebSocket })
  await assert.rejects(again.start(), e => /^restricted: .*revoked/.test(e.reason))
})

test('a NIP-07 extension signs: AUTH, publish and NIP-44 go through window.nostr', async () => {
  // an object with the NIP-07 interface (what an extension puts at window.nostr), holding bob's key
  const calls = []
  const ext = {
    getPublicKey: async () => { calls.push('getPublicKey'); return bob.pk },
    signEvent: async tpl => { calls.push('signEvent:' + tpl.kind); return finalizeEvent(tpl, bob.sk) },
    nip44: {
      encrypt: async (pk, text) => { calls.push('nip44.encrypt'); return nip44.encrypt(text, nip44.getConversationKey(bob.sk, pk)) },
      decrypt: async (pk, ct) => { calls.push('nip44.decrypt'); return nip44.decrypt(ct, nip44.getConversationKey(bob.sk, pk)) }
    }
  }
  const c = new HubConnection({ url: hub.url, signer: nip07Signer(ext), WebSocket })
  hub.conns.push(c)
  await c.start()
  assert.equal(c.pubkey, bob.pk)
  const ev = await c.publish({ kind: 9, tags: [['h', 'general']], content: 'signed by the extension' })
  assert.equal(ev.pubkey, bob.pk)
  assert.deepEqual(calls, ['getPublicKey', 'signEvent:22242', 'signEvent:9'])
  const ct = await c.signer.nip44Encrypt(alice.pk, 'secret')
  assert.equal(await localSigner(alice.sk).nip44Decrypt(bob.pk, ct), 'secret')
  assert.throws(() => nip07Signer(undefined), /no NIP-07 extension/)
  await assert.rejects(nip07Signer({ getPublicKey: ext.getPublicKey, signEvent: ext.signEvent }).nip44Decrypt(alice.pk, ct), /has no NIP-44/)
})

test('a silent link (no close, no answer) is noticed by the heartbeat and replaced', async () => {
  const proxy = await stallingProxy(hub)
  // the AUTH relay tag names the hub's own URL, so the test dials the proxy with the hub's URL in AUTH
  class ViaProxy extends WebSocket { constructor (url) { super(url.replace(hub.url, proxy.url)) } }
  const c = new HubConnection({ url: hub.url, signer: localSigner(bob.sk), WebSocket: ViaProxy, heartbeat: 400, timeout: 800, minBackoff: 100, maxBackoff: 200 })
  hub.conns.push(c)
  const states = []
  c.on('state', s => states.push(s))
  await c.start()
  const got = []
  c.subscribe([{ kinds: [9], '#h': ['general'] }], { onevent: ev => got.push(ev.id) })
  proxy.freeze()
  const lost = await waitFor(() => states.find(s => s.state === 'reconnecting'), 10000, 'the silent link noticed')
  assert.equal(lost.reason, 'no answer from the hub')
  const sent = await (await hub.connect(alice.sk)).publish({ kind: 9, tags: [['h', 'general']], content: 'while the link was silent' })
  proxy.thaw()
  await waitFor(() => got.includes(sent.id), 15000, 'the message sent while the link was silent')
  assert.equal(c.state, 'connected')
  assert.equal(new Set(got).size, got.length)
  proxy.close()
})
