// nostr-tools interoperability: the real hive binary, driven by the nostr-tools
// client (pinned in package.json) over real websockets. Run with `make
// test-interop`, which builds the binary and sets HIVE_BIN.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'

import WebSocket from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { SimplePool, useWebSocketImplementation as usePoolWebSocket } from 'nostr-tools/pool'
import { generateSecretKey, getPublicKey, finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import { fetchRelayInformation } from 'nostr-tools/nip11'

import { freePort, startHub, stopHub, withTimeout } from './harness.js'

useWebSocketImplementation(WebSocket)
usePoolWebSocket(WebSocket)

const adminSK = generateSecretKey()
const adminPK = getPublicKey(adminSK)
const signer = async (template) => finalizeEvent(template, adminSK)

let hub // the hive serve child process
let dataDir
let url // ws://127.0.0.1:PORT
const relays = [] // closed after the suite

// connect opens a nostr-tools Relay and waits for the hub's NIP-42 challenge,
// which the hub sends as soon as the websocket opens.
async function connect() {
  const relay = await Relay.connect(url)
  relays.push(relay)
  await waitForChallenge(relay)
  return relay
}

async function waitForChallenge(relay) {
  const deadline = Date.now() + 5_000
  while (!relay.challenge) {
    if (Date.now() > deadline) throw new Error('no AUTH challenge from the hub')
    await new Promise((r) => setTimeout(r, 10))
  }
}

// connectAuthed connects and authenticates as the admin key.
async function connectAuthed() {
  const relay = await connect()
  await withTimeout(relay.auth(signer), 5_000, 'AUTH answer')
  return relay
}

// authedPool returns a SimplePool whose connection to the hub has finished
// NIP-42 as the admin: automaticallyAuth answers the challenge, and waiting for
// that answer keeps the pool's first REQ from racing ahead of its AUTH.
async function authedPool() {
  const pool = new SimplePool()
  pool.automaticallyAuth = () => signer
  const relay = await pool.ensureRelay(url)
  await waitForChallenge(relay)
  await withTimeout(relay.auth(signer), 5_000, 'pool AUTH answer')
  return pool
}

function note(content, tags = [], kind = 1) {
  return finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), tags, content }, adminSK)
}

const tag = () => randomBytes(6).toString('hex')

before(async () => {
  const bin = process.env.HIVE_BIN
  assert.ok(bin, 'HIVE_BIN must name a built hive binary (make test-interop sets it)')
  dataDir = mkdtempSync(join(tmpdir(), 'hive-interop-'))
  const addr = `127.0.0.1:${await freePort()}`
  url = `ws://${addr}`
  hub = await startHub(bin, addr, dataDir, adminPK)
})

after(async () => {
  for (const r of relays) {
    try {
      r.close()
    } catch {}
  }
  await stopHub(hub)
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

test('NIP-11 document over Accept: application/nostr+json', async () => {
  const res = await fetch(url.replace('ws://', 'http://'), {
    headers: { Accept: 'application/nostr+json' },
  })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type'), /application\/nostr\+json/)
  assert.equal(res.headers.get('access-control-allow-origin'), '*')
  const doc = await res.json()
  assert.equal(doc.software, 'hive')
  for (const nip of [1, 11, 42, 45]) assert.ok(doc.supported_nips.includes(nip), `NIP-${nip} advertised`)
  assert.ok(doc.limitation.max_message_length > 0)
  assert.ok(doc.limitation.max_limit > 0)

  // nostr-tools' own NIP-11 helper reads the same document
  const info = await fetchRelayInformation(url)
  assert.equal(info.software, 'hive')
  assert.deepEqual(info.supported_nips, doc.supported_nips)
})

test('NIP-42: relay.auth as the admin key', async () => {
  const relay = await connect()
  const reason = await withTimeout(relay.auth(signer), 5_000, 'AUTH answer')
  assert.equal(typeof reason, 'string')
})

test('NIP-42: onauth answers the challenge automatically', async () => {
  const relay = new Relay(url)
  relays.push(relay)
  let answered
  const done = new Promise((resolve) => (answered = resolve))
  relay.onauth = async (template) => {
    const ev = await signer(template)
    answered(ev)
    return ev
  }
  await relay.connect()
  const ev = await withTimeout(done, 5_000, 'onauth call')
  assert.equal(ev.kind, 22242)
  assert.equal(ev.pubkey, adminPK)
  // auth() hands back the AUTH already under way; it resolves on the hub's OK
  await withTimeout(relay.auth(relay.onauth), 5_000, 'AUTH answer')
  // the connection is usable as the admin afterwards
  const e = note('after onauth', [['t', tag()]])
  await withTimeout(relay.publish(e), 5_000, 'publish after onauth')
})

test('NIP-42: an AUTH for another challenge is refused with invalid:', async () => {
  const relay = await connect()
  const wrong = async (template) =>
    finalizeEvent(
      { ...template, tags: template.tags.map((t) => (t[0] === 'challenge' ? ['challenge', 'not-the-challenge'] : t)) },
      adminSK,
    )
  await assert.rejects(withTimeout(relay.auth(wrong), 5_000, 'AUTH answer'), (err) => {
    assert.match(err.message, /^invalid:/)
    return true
  })
})

test('before AUTH: publish and REQ are refused with auth-required:', async () => {
  const relay = await connect()
  await assert.rejects(withTimeout(relay.publish(note('too early')), 5_000, 'publish'), (err) => {
    assert.match(err.message, /^auth-required:/)
    return true
  })
  const reason = await withTimeout(
    new Promise((resolve) => {
      relay.subscribe([{ kinds: [1] }], {
        onevent: () => {},
        onclose: resolve,
      })
    }),
    5_000,
    'CLOSED',
  )
  assert.match(reason, /^auth-required:/)
})

test('NIP-42: a key that is not a member is told why: OK true as a NIP-43 guest, then restricted: for all it asks', async () => {
  const relay = await connect()
  const stranger = generateSecretKey()
  // with invites (the default) the AUTH completes, its OK saying why the
  // key may only send a join request (nip43.test.js; --invites off:
  // refused_auth.test.js)
  const why = await withTimeout(
    relay.auth(async (t) => finalizeEvent(t, stranger)),
    5_000,
    'AUTH answer',
  )
  assert.match(why, /^restricted: npub1\w+ is not a member of this hub; join with an invite/)
  const reason = await withTimeout(
    new Promise((resolve) => relay.subscribe([{ kinds: [1] }], { onevent: () => {}, onclose: resolve })),
    5_000,
    'CLOSED',
  )
  assert.equal(reason, why)
})

// Generic filters, with or without kinds, are answered with what the reader
// may read (the read rule in spec/auth.md).
test('publish kind 1, then query with querySync, subscribe+oneose and COUNT', async () => {
  const relay = await connectAuthed()
  const t = tag()
  const sent = []
  for (let i = 0; i < 3; i++) {
    const ev = note(`interop ${i}`, [['t', t]])
    const reason = await withTimeout(relay.publish(ev), 5_000, 'publish')
    assert.equal(typeof reason, 'string')
    sent.push(ev)
  }
  // publishing the same event again is accepted as a duplicate
  const dup = await withTimeout(relay.publish(sent[0]), 5_000, 'duplicate publish')
  assert.match(dup, /^duplicate:/)

  // SimplePool.querySync, authenticated on its own connection
  const pool = await authedPool()
  try {
    const got = await withTimeout(pool.querySync([url], { kinds: [1], '#t': [t] }, { maxWait: 5_000 }), 8_000, 'querySync')
    assert.deepEqual(got.map((e) => e.id).sort(), sent.map((e) => e.id).sort())
    // kind-less, tag-only: what a generic client sends
    const any = await withTimeout(pool.querySync([url], { '#t': [t] }, { maxWait: 5_000 }), 8_000, 'kind-less querySync')
    assert.deepEqual(any.map((e) => e.id).sort(), sent.map((e) => e.id).sort())
    for (const e of got) assert.ok(verifyEvent(e), 'stored event verifies')
    const one = await withTimeout(pool.get([url], { kinds: [1], ids: [sent[1].id] }, { maxWait: 5_000 }), 8_000, 'pool.get')
    assert.equal(one?.content, 'interop 1')
  } finally {
    pool.destroy()
  }

  // Relay.subscribe until EOSE, newest first with limit
  const stored = await withTimeout(
    new Promise((resolve, reject) => {
      const evs = []
      const sub = relay.subscribe([{ kinds: [1], authors: [adminPK], '#t': [t], limit: 2 }], {
        onevent: (e) => evs.push(e),
        oneose: () => {
          resolve(evs)
          sub.close()
        },
        onclose: (reason) => reject(new Error(`subscription closed: ${reason}`)),
      })
    }),
    5_000,
    'EOSE',
  )
  assert.equal(stored.length, 2)
  assert.ok(stored[0].created_at >= stored[1].created_at, 'newest first')

  // NIP-45
  const n = await withTimeout(relay.count([{ kinds: [1], '#t': [t] }], {}), 5_000, 'COUNT')
  assert.equal(n, 3)
  const m = await withTimeout(relay.count([{ '#t': [t] }], {}), 5_000, 'kind-less COUNT')
  assert.equal(m, 3)
})

test('a live subscriber receives an event published on another connection', async () => {
  const reader = await connectAuthed()
  const writer = await connectAuthed()
  const t = tag()
  let received
  const live = new Promise((resolve) => (received = resolve))
  await withTimeout(
    new Promise((resolve, reject) => {
      reader.subscribe([{ kinds: [1], '#t': [t] }], {
        onevent: (e) => received(e),
        oneose: resolve,
        onclose: (reason) => reject(new Error(`subscription closed: ${reason}`)),
      })
    }),
    5_000,
    'EOSE of the live subscription',
  )
  const ev = note('live', [['t', t]])
  await withTimeout(writer.publish(ev), 5_000, 'publish')
  const got = await withTimeout(live, 5_000, 'live event')
  assert.equal(got.id, ev.id)
  assert.equal(got.sig, ev.sig)
})

test('kind 9 chat message in a channel created with kind 9007', async () => {
  const relay = await connectAuthed()
  const channel = `interop-${tag()}`
  // a message into a channel that does not exist is refused with a NIP-01 prefix
  const stray = note('nowhere', [['h', channel]], 9)
  await assert.rejects(withTimeout(relay.publish(stray), 5_000, 'kind 9 without a channel'), (err) => {
    assert.match(err.message, /^(invalid|restricted):/)
    return true
  })
  const create = note('', [['h', channel], ['name', 'interop']], 9007)
  await withTimeout(relay.publish(create), 5_000, 'create the channel (kind 9007)')

  const reader = await connectAuthed()
  let received
  const live = new Promise((resolve) => (received = resolve))
  await withTimeout(
    new Promise((resolve, reject) => {
      reader.subscribe([{ kinds: [9], '#h': [channel] }], {
        onevent: (e) => received(e),
        oneose: resolve,
        onclose: (reason) => reject(new Error(`subscription closed: ${reason}`)),
      })
    }),
    5_000,
    'EOSE of the channel subscription',
  )
  const msg = note('kind 9 hello', [['h', channel]], 9)
  await withTimeout(relay.publish(msg), 5_000, 'publish kind 9')
  assert.equal((await withTimeout(live, 5_000, 'live kind 9')).id, msg.id)

  const pool = await authedPool()
  try {
    const got = await withTimeout(pool.querySync([url], { kinds: [9], '#h': [channel] }, { maxWait: 5_000 }), 8_000, 'querySync')
    assert.deepEqual(
      got.map((e) => e.id),
      [msg.id],
    )
  } finally {
    pool.destroy()
  }
})

test('invalid events are refused with a reason starting with invalid:', async () => {
  const relay = await connectAuthed()
  const good = note('will be tampered')
  const cases = {
    'tampered content': { ...good, content: 'tampered' },
    'bad signature': { ...good, sig: '0'.repeat(128) },
    'wrong id': { ...good, id: 'f'.repeat(64) },
    'created_at a day ahead': finalizeEvent(
      { kind: 1, created_at: Math.floor(Date.now() / 1000) + 86_400, tags: [], content: 'future' },
      adminSK,
    ),
  }
  for (const [name, ev] of Object.entries(cases)) {
    await assert.rejects(withTimeout(relay.publish(ev), 5_000, name), (err) => {
      assert.match(err.message, /^invalid:/, name)
      return true
    })
  }
  // the connection still works after the refusals
  await withTimeout(relay.publish(good), 5_000, 'publish after refusals')
})
