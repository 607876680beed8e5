// The chat helpers (web/src/hub/chat.js) and the JS model over a real hub:
// channels, pages merged without duplicates, overlays written by the CLI,
// the same rows, names and text as the Go model prints (hive read --json),
// read state shared with the member's other keys, mentions, and sending
// replies, reactions, edits and deletes that the other member's CLI sees.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { generalHub, device, waitFor } from './lib/hub.js'
import { ChatModel, covers } from '../src/model/index.js'
import * as chat from '../src/hub/chat.js'
import { asGo } from './lib/gorow.js'

let hub, alice, bob
before(async () => { ({ hub, alice, bob } = await generalHub()) })
after(() => hub?.stop())

const lines = out => out.trim().split('\n').filter(Boolean).map(l => JSON.parse(l))
test('listChannels: the channel with its roster and the member role', async () => {
  const c = await hub.connect(alice.sk)
  const chans = await chat.listChannels(c)
  const g = chans.find(ch => ch.id === 'general')
  assert.ok(g, JSON.stringify(chans))
  assert.equal(g.role, 'owner')
  assert.equal(g.type, 'stream')
  assert.equal(g.members[bob.pk], 'member')
})

test('pages back to the start merge without duplicates and show what hive read shows', async () => {
  const b = await hub.connect(bob.sk)
  const sent = []
  const t0 = Math.floor(Date.now() / 1000) - 100
  for (let i = 0; i < 130; i++) { // three a second, so pages cut through seconds
    sent.push(await b.publish({ ...chat.messageEvent('general', `message ${i}`), created_at: t0 + Math.floor(i / 3) }))
  }
  const q = await chat.sendMessage(b, 'general', 'a question for @alice', [alice.pk])
  await hub.as(alice, ['send', 'general', 'an answer', '--reply-to', q.id])
  await hub.as(bob, ['edit', sent[3].id, 'message 3, edited'])
  await hub.as(alice, ['react', sent[5].id, '🎉'])
  await hub.as(bob, ['react', sent[5].id, '🎉'])
  await hub.as(bob, ['react', sent[5].id, '👍'])
  await hub.as(bob, ['delete', sent[7].id])
  const c = await hub.connect(alice.sk)
  const m = new ChatModel(c.member)
  await chat.loadPage(c, m, 'general', { limit: 30 })
  assert.ok(m.len('general') >= 30 && m.len('general') < 100, `first page: ${m.len('general')} rows`)
  let pages = 0
  while (!(await chat.loadOlder(c, m, 'general', 30)).start) pages++
  assert.ok(pages >= 2, `${pages} older pages`)
  const rows = m.timeline('general')
  const ids = rows.map(r => r.id)
  assert.equal(new Set(ids).size, ids.length, 'a row shown twice')
  assert.ok(!ids.includes(sent[7].id), 'the deleted message is hidden')
  assert.equal(m.row(sent[3].id).text, 'message 3, edited')
  assert.deepEqual(m.row(sent[5].id).reactions.map(x => [x.emoji, x.count]), [['🎉', 2], ['👍', 1]])
  const answer = rows.find(r => r.text === 'an answer')
  assert.equal(answer.root, q.id)
  assert.equal(m.row(q.id).replies, 1)
  // the Go model (hive read --json) shows the same rows, names and text
  const goRows = lines(await hub.as(bob, ['read', 'general', '--json', '--limit', '500', '--no-mark']))
  const want = goRows.map(({ name, label, shown, op, member, ...row }) => row)
  const got = rows.filter(r => !r.system || want.some(w => w.id === r.id)).map(asGo)
  assert.deepEqual(got, want)
  for (const g of goRows) {
    assert.equal(m.names.name(g.author), g.name)
    assert.equal(m.names.label(g.author), g.label)
    assert.equal(m.text(m.row(g.id)), g.shown)
  }
  assert.equal(m.unread('general', {}).mentions, 1, 'the question mentions alice')
})

test('read state: a device marks read and the member other key shows 0 unread; the owner mark reaches the device', async () => {
  await hub.as(bob, ['send', 'general', 'one more'])
  const before = lines(await hub.as(alice, ['channel', 'list', '--json'])).find(ch => ch.id === 'general')
  assert.ok(before.unread > 0, JSON.stringify(before))
  const d = await device(hub, alice)
  assert.equal(d.conn.member, alice.pk)
  const m = new ChatModel(d.conn.member)
  await chat.loadPage(d.conn, m, 'general', { limit: 100 })
  const positions = await chat.readStates(d.conn)
  assert.ok(m.unread('general', positions).unread > 0)
  await chat.markRead(d.conn, 'general', m.seen('general'))
  const after = lines(await hub.as(alice, ['channel', 'list', '--json'])).find(ch => ch.id === 'general')
  assert.equal(after.unread, 0, JSON.stringify(after))
  assert.equal(m.unread('general', await chat.readStates(d.conn)).unread, 0)
  // the device's own message is the member's: never unread for alice
  const mine = await chat.sendMessage(d.conn, 'general', 'from the laptop')
  await chat.loadNames(d.conn, m, [d.pk])
  m.apply(mine)
  assert.ok(m.own(d.pk))
  assert.equal(m.names.name(d.pk), 'alice')
  assert.equal(m.names.label(d.pk), 'alice (laptop)')
  assert.equal(lines(await hub.as(alice, ['channel', 'list', '--json'])).find(ch => ch.id === 'general').unread, 0)
  // alice reads on her own key: the device follows the new position
  const seen = []
  let live = 0
  chat.follow(d.conn, m, ['general'], { onreadstate: (ctx, at) => seen.push([ctx, at]), onevent: () => live++ })
  // no wait for the clock: a message written after the mark is unread, in the mark's second too
  const late = await chat.sendMessage(await hub.connect(bob.sk), 'general', 'after the mark')
  await waitFor(() => m.row(late.id), 10000, 'the live message in the model')
  assert.equal(m.unread('general', await chat.readStates(d.conn)).first_unread, late.id)
  await hub.as(alice, ['read', 'general', '--json'])
  await waitFor(() => seen.some(([ctx, at]) => ctx === 'general' && covers(at, late.created_at, late.id)), 10000, 'the read position on the device')
  assert.ok(live > 0)
})

test('from the browser: reply in a thread, react, edit, delete; the other member sees each', async () => {
  const c = await hub.connect(alice.sk)
  const m = new ChatModel(c.member)
  const q = await chat.sendMessage(c, 'general', 'thread root')
  m.apply(q)
  const reply = await chat.sendReply(c, m.row(q.id), 'reply in the thread')
  m.apply(reply)
  const second = await chat.sendReply(c, m.row(reply.id), 'reply to the reply')
  assert.deepEqual(second.tags.filter(t => t[0] === 'e'), [['e', q.id, '', 'root'], ['e', reply.id, '', 'reply']])
  await chat.react(c, m.row(q.id), '👍')
  await chat.editMessage(c, m.row(q.id), 'thread root (edited)')
  await chat.deleteMessage(c, m.row(reply.id))
  const rows = lines(await hub.as(bob, ['read', 'general', '--json', '--limit', '500', '--no-mark']))
  const root = rows.find(r => r.id === q.id)
  assert.equal(root.text, 'thread root (edited)')
  assert.equal(root.edited, true)
  assert.deepEqual(root.reactions, [{ emoji: '👍', count: 1, who: [alice.pk] }])
  assert.equal(root.replies, 1, 'one reply left after the delete')
  assert.ok(!rows.some(r => r.id === reply.id), 'the deleted reply is gone')
  assert.equal(rows.find(r => r.id === second.id).root, q.id)
  const mine = await chat.loadOverlays(c, m, [q])
  assert.ok(chat.ownReaction(m, q.id, '👍'), 'the own reaction is found to retract')
  await chat.unreact(c, chat.ownReaction(m, q.id, '👍'))
  const again = lines(await hub.as(bob, ['read', 'general', '--json', '--limit', '500', '--no-mark'])).find(r => r.id === q.id)
  assert.equal(again.reactions, undefined, 'the retracted reaction is gone')
  assert.ok(mine.length >= 2)
})

test('follow: typing shows and ends with the message, channel changes and new names arrive', async () => {
  const carol = await hub.member('carol')
  const b = await hub.connect(bob.sk)
  const m = new ChatModel(b.member)
  let channels = 0
  const named = []
  let eose = false
  const since = Math.floor(Date.now() / 1000) + 1 // after carol's profile: her name must be fetched
  await waitFor(() => Date.now() / 1000 >= since, 3000, 'the next second')
  const sub = chat.follow(b, m, ['general'], { since, oneose: () => { eose = true }, onchannels: () => channels++, onnames: pks => named.push(...pks) })
  await waitFor(() => eose, 10000, 'the feed EOSE')
  const c = await hub.connect(carol.sk)
  await chat.joinChannel(c, 'general')
  await waitFor(() => channels > 0, 10000, 'the roster change')
  await chat.sendTyping(c, 'general')
  await waitFor(() => m.live.typing('general', Date.now()).includes(carol.pk), 10000, 'carol typing')
  const msg = await chat.sendMessage(c, 'general', 'done typing')
  await waitFor(() => m.row(msg.id), 10000, "carol's message")
  assert.deepEqual(m.live.typing('general', Date.now()), [], 'her message ends her typing')
  await waitFor(() => named.includes(carol.pk), 10000, "carol's name fetched")
  assert.equal(m.names.name(carol.pk), 'carol')
  assert.deepEqual(m.names.complete('@ca').map(x => [x.pubkey, x.handle]), [[carol.pk, 'carol']])
  assert.deepEqual(chat.mentionsIn(m.names, 'hi @carol, and @nobody'), [carol.pk])
  sub.close()
})
