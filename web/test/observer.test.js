// An agent's observer frames on a paired device of its owner (web/src/hub/observer.js)
// with the real hive bridge and the scripted agent: the watch lease, the
// live transcript, the working signal, a permission request answered with
// one of the agent's own options (the tool runs, the reply comes), steer
// and cancel.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { startHub, device, waitFor } from './lib/hub.js'
import { startBridge } from './lib/bridge.js'
import { ChatModel } from '../src/model/index.js'
import * as chat from '../src/hub/chat.js'

let hub, alice, bob, br
before(async () => {
  hub = await startHub()
  alice = await hub.member('alice')
  bob = await hub.member('bob')
  await hub.as(alice, ['channel', 'create', 'room', '--private'])
  await hub.as(alice, ['channel', 'add', 'room', bob.npub])
  br = await startBridge(hub, alice, 'room', ['permissions = "ask"', 'permission_timeout = "60s"'])
})
after(async () => { await br?.stop(); await hub?.stop() })

// mention sends text from alice's own key (hive send), p-tagging the agent.
// (The bridge's answer gate admits the owner's key, not yet the owner's devices.)
const mention = async text => JSON.parse(await hub.as(alice, ['send', 'room', text, '--mention', br.npub, '--json']))

const replyTo = async id => {
  const rows = (await hub.as(bob, ['read', 'room', '--json', '--no-mark', '--limit', '200'])).trim().split('\n').map(l => JSON.parse(l))
  return rows.find(r => r.reply_to === id && r.author === br.agent)
}

test('a paired device watches the agent, sees it working, and approves its permission request', async () => {
  const d = await device(hub, alice, 'phone')
  const m = new ChatModel(d.conn.member)
  await chat.loadNames(d.conn, m, [br.agent])
  assert.equal(m.names.name(br.agent), "helper (alice's agent)")
  assert.deepEqual(m.names.agentsOf(alice.pk), [br.agent])
  const w = chat.watchAgent(d.conn, br.agent, { model: m })
  await new Promise(r => setTimeout(r, 500)) // the bridge checks the device on the hub
  const ask = await mention('@helper [[permission]] may I?')
  const pv = await waitFor(() => w.transcript.pending()[0], 30000, 'the permission request in the transcript')
  assert.ok(pv.options.length >= 2, JSON.stringify(pv.options))
  assert.ok(pv.session && pv.request !== undefined)
  const working = m.live.working(br.agent, 'room', Date.now())
  assert.equal(working.working, true)
  assert.equal(working.source, 'observer')
  const allow = pv.options.find(o => o.kind.startsWith('allow'))
  await w.answer(pv, allow.id)
  const reply = await waitFor(() => replyTo(ask.id), 30000, "the agent's reply")
  assert.match(reply.text, /permission: allow/)
  await waitFor(() => pv.answer === allow.id, 10000, 'the answer in the transcript')
  const turn = w.transcript.turns.find(t => t.turn === ask.id)
  assert.ok(turn.tools.some(t => t.status === 'completed'), JSON.stringify(turn.tools))
  await waitFor(() => !m.live.working(br.agent, 'room', Date.now()).working, 10000, 'the agent idle again')
  await waitFor(async () => {
    await chat.loadPage(d.conn, m, 'room', { limit: 50 })
    return m.row(ask.id).receipts.some(r => r.agent === br.agent && r.status === 'answered')
  }, 10000, "the agent's receipt: answered")
  w.close()
})

test('steer into a running turn, then cancel one, from the device', async () => {
  const d = await device(hub, alice, 'tablet')
  const w = chat.watchAgent(d.conn, br.agent)
  await new Promise(r => setTimeout(r, 500))
  const go = await mention('@helper [[steerable:15s]] go')
  const t1 = await waitFor(() => w.transcript.turns.find(t => t.turn === go.id && t.session && /waiting for steering/.test(t.text + t.thoughts + JSON.stringify(t.tools))), 30000, 'the steerable turn')
  await w.steer(t1.session, 'turn left')
  assert.match((await waitFor(() => replyTo(go.id), 30000, 'the steered reply')).text, /steered: turn left$/)
  const slow = await mention('@helper [[slow:30s]] long')
  const t2 = await waitFor(() => w.transcript.turns.find(t => t.turn === slow.id && t.prompt), 30000, 'the slow turn')
  await w.cancel(t2.session)
  assert.match((await waitFor(() => replyTo(slow.id), 20000, 'the cancelled reply')).text, /cancelled by the owner's device/)
  w.close()
})
