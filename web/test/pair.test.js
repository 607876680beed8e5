// Pairing this client as a device (web/src/pair) against a real `hive pair`
// (its SAS prompt answered on its stdin) and the real hub's /pair relay:
// both sides show the same SAS, the device gets its own key attested by the
// owner, proves it on the hub (hive device list shows it, its messages are
// the owner's); a "no" on either side ends both with user_denied.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import WebSocket from 'ws'
import { startHub, BIN } from './lib/hub.js'
import { joinPairing } from '../src/pair/index.js'
import { verifyAuthTag, publicKeyOf } from '../src/keys/index.js'
import { sendMessage } from '../src/hub/chat.js'

let hub, alice, bob
before(async () => {
  hub = await startHub()
  alice = await hub.member('alice')
  bob = await hub.member('bob')
  await hub.as(alice, ['channel', 'create', 'general'])
  await hub.as(bob, ['channel', 'join', 'general'])
})
after(() => hub?.stop())

// pair starts `hive pair --json` as alice; events() yields its NDJSON lines.
function pair () {
  const p = spawn(BIN, ['pair', '--json', '--timeout', '60s', '--hub', hub.url, '--key', alice.file], { env: { ...process.env, HIVE_HOME: hub.home } })
  const lines = []
  let wake = () => {}
  createInterface({ input: p.stdout }).on('line', l => { lines.push(JSON.parse(l)); wake() })
  let stderr = ''
  p.stderr.on('data', b => { stderr += b })
  p.stdin.on('error', () => {}) // an answer after hive pair has ended goes nowhere
  const exited = new Promise(resolve => p.once('exit', code => { wake(); resolve(code) }))
  const next = async event => {
    for (;;) {
      const i = lines.findIndex(l => l.event === event || l.event === 'error')
      if (i >= 0) return lines.splice(i, 1)[0]
      if (p.exitCode !== null) throw new Error(`hive pair exited ${p.exitCode} before ${event}: ${stderr}`)
      await new Promise(resolve => { wake = resolve })
    }
  }
  return { p, next, exited, answer: a => { if (p.exitCode === null) p.stdin.write(a + '\n') }, stderr: () => stderr }
}

test('pairing with hive pair: the same SAS, an attested key of its own, proved on the hub', async () => {
  const src = pair()
  const { uri } = await src.next('uri')
  assert.match(uri, /^nostrpair:\/\//)
  let shown = ''
  const states = []
  const res = await joinPairing({
    uri,
    name: 'web',
    WebSocket,
    onState: s => states.push(s),
    onSas: sas => { shown = sas },
    confirm: async sas => {
      const theirs = await src.next('sas')
      assert.equal(theirs.sas, sas, 'both screens show the same code')
      src.answer('y')
      return true
    }
  })
  assert.match(shown, /^[0-9]{6}$/)
  assert.deepEqual(states, ['connecting', 'sas', 'confirmed', 'received', 'proving', 'done'])
  const done = await src.next('done')
  assert.equal(done.event, 'done', JSON.stringify(done))
  assert.equal(await src.exited, 0, src.stderr())
  assert.equal(done.device, res.pubkey)
  assert.equal(publicKeyOf(res.secretKey), res.pubkey)
  assert.equal(res.owner, alice.pk)
  const a = verifyAuthTag(res.auth, res.pubkey)
  assert.ok(a.device && a.owner === alice.pk)
  assert.ok(res.expiresAt > Date.now() / 1000 + 80 * 86400, 'a 90-day attestation')
  assert.deepEqual(res.hubs, [hub.url])
  assert.equal(res.connection.state, 'connected')
  assert.equal(res.connection.member, alice.pk)
  const devices = await hub.as(alice, ['device', 'list', '--json'])
  assert.ok(devices.includes(res.pubkey), devices)
  const m = await sendMessage(res.connection, 'general', 'hello from the paired browser')
  assert.equal(m.pubkey, res.pubkey)
  const row = (await hub.as(bob, ['read', 'general', '--json', '--no-mark'])).trim().split('\n').map(l => JSON.parse(l)).find(r => r.id === m.id)
  assert.deepEqual([row.name, row.label, row.author], ['alice', 'alice (web)', res.pubkey])
  res.connection.close()
})

test('the owner says no: the pairing ends with user_denied on both sides', async () => {
  const src = pair()
  const { uri } = await src.next('uri')
  await assert.rejects(joinPairing({
    uri,
    WebSocket,
    confirm: () => new Promise(() => {}), // this side never answers
    onSas: async () => { await src.next('sas'); src.answer('n') }
  }), /^PairingError: the other device aborted the pairing: user_denied$/)
  const err = await src.next('error')
  assert.match(err.error, /^pairing cancelled/)
  assert.notEqual(await src.exited, 0)
})

test('this side says no: hive pair reports the abort, and no attestation is sent', async () => {
  const count = async () => (await hub.as(alice, ['device', 'list', '--json'])).trim().split('\n').filter(Boolean).length
  const before = await count()
  const src = pair()
  const { uri } = await src.next('uri')
  await assert.rejects(joinPairing({ uri, WebSocket, confirm: async () => false }), /^PairingError: pairing cancelled: the code was not confirmed on this device$/)
  await src.next('sas')
  src.answer('y') // too late: the abort came first
  const err = await src.next('error')
  assert.equal(err.event, 'error')
  assert.match(err.error, /the other device aborted the pairing: user_denied/)
  assert.notEqual(await src.exited, 0)
  assert.equal(await count(), before, 'no device was added')
})

test('a code nobody listens for expires with the spec message', async () => {
  const src = pair()
  const { uri } = await src.next('uri')
  src.p.kill('SIGKILL')
  await src.exited
  // "pairing session expired: no source is listening ...", or without the
  // detail when the relay had not yet seen the killed source go
  await assert.rejects(joinPairing({ uri, WebSocket, timeout: 1500 }), /^PairingError: pairing session expired/)
})
