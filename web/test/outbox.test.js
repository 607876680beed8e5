// The outbox (web/src/hub/outbox.js) against the real hive serve: a message
// written while the hub is down is a pending row until the hub is back,
// then stored once; a refusal keeps the row with the hub's reason until a
// retry (the same event) goes through, or it is discarded.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { generalHub, waitFor } from './lib/hub.js'
import { ChatModel } from '../src/model/index.js'
import { Outbox, messageEvent, replyEvent } from '../src/hub/chat.js'

let hub, alice, bob
before(async () => { ({ hub, alice, bob } = await generalHub()) })
after(() => hub?.stop())

// readAs is what hive read --json prints of channel for member m: [{id, text}].
async function readAs (m, channel) {
  const out = await hub.as(m, ['read', channel, '--json', '--limit', '100'])
  return out.trim().split('\n').filter(Boolean).map(l => JSON.parse(l)).filter(r => !r.system)
}

test('written while the hub is down: a sending row, then stored once when the hub is back', async () => {
  const conn = await hub.connect(alice.sk, { minBackoff: 200, maxBackoff: 500 })
  const model = new ChatModel(alice.pk)
  const box = new Outbox(conn, model)
  await hub.kill9()
  await waitFor(() => conn.state === 'reconnecting', 10000, 'reconnecting')
  const ev = await box.send(messageEvent('general', 'written offline'))
  const reply = await box.send(replyEvent({ id: ev.id, channel: 'general', author: alice.pk, root: ev.id }, 'and a reply, offline too'))
  const rows = box.rows('general')
  assert.deepEqual(rows.map(r => [r.id, r.pending, r.text, r.author]), [[ev.id, 'sending', 'written offline', alice.pk]])
  assert.deepEqual(box.rows('general', ev.id).map(r => [r.id, r.pending, r.root]), [[reply.id, 'sending', ev.id]])
  assert.equal(model.rows.size, 0, 'nothing is in the model before the OK')
  await hub.start()
  await waitFor(() => box.items.size === 0, 30000, 'the OKs')
  assert.ok(model.rows.has(ev.id) && model.rows.has(reply.id), 'the stored events are rows of the model')
  assert.deepEqual(box.rows('general'), [])
  const read = await readAs(bob, 'general')
  assert.equal(read.filter(r => r.text === 'written offline').length, 1, JSON.stringify(read))
  assert.equal(read.find(r => r.text === 'written offline').id, ev.id)
})

test("refused: the row holds the hub's reason; a retry after the cause is gone stores it once; discard gives the text back", async () => {
  await hub.as(alice, ['channel', 'create', 'vault', '--private'])
  const conn = await hub.connect(bob.sk)
  const model = new ChatModel(bob.pk)
  const box = new Outbox(conn, model)
  const ev = await box.send(messageEvent('vault', 'let me in'))
  assert.deepEqual(box.rows('vault'), [], 'over a live connection the row waits SHOW_AFTER ms for the OK before it shows as sending')
  await waitFor(() => box.items.get(ev.id)?.state === 'failed', 10000, 'the refusal')
  assert.deepEqual(box.rows('vault').map(r => [r.id, r.pending, r.reason, r.attempt]), [[ev.id, 'failed', 'restricted: not a member of channel vault', 1]])
  assert.equal(await box.retry(ev.id), false, 'still not a member: refused again')
  assert.equal(box.rows('vault')[0].reason, 'restricted: not a member of channel vault')
  assert.equal(box.rows('vault')[0].attempt, 2, 'the row says which publish of the event it shows')
  await hub.as(alice, ['channel', 'add', 'vault', bob.npub])
  assert.equal(await box.retry(ev.id), true)
  assert.deepEqual(box.rows('vault'), [])
  assert.ok(model.rows.has(ev.id))
  const read = await readAs(alice, 'vault')
  assert.deepEqual(read.filter(r => r.text === 'let me in').map(r => r.id), [ev.id])

  await hub.as(alice, ['channel', 'remove', 'vault', bob.npub])
  const again = await box.send(messageEvent('vault', 'one more'))
  await waitFor(() => box.items.get(again.id)?.state === 'failed', 10000, 'the second refusal')
  assert.equal(box.discard(again.id), 'one more')
  assert.deepEqual(box.rows('vault'), [])
  assert.equal(box.discard(again.id), '', 'discarded once')
})
