// client/chat's TestLiveSignals in JS: presence and typing expire; typing
// keeps its first time while renewed and ends with the author's message;
// observer turns come before typing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ChatModel, TYPING_TTL, PRESENCE_TTL, FROM_OBSERVER, FROM_TYPING } from '../src/model/index.js'

test('presence, typing and the working signal', () => {
  const t0 = 1700000000 * 1000
  let now = t0
  const m = new ChatModel('a'.repeat(64))
  m.setClock(() => now)
  const agent = '037d234fad80201dd12c3060872b71398b83b45765d263e32c90eadf4f754c34'
  const typing = id => ({ id, pubkey: agent, kind: 20002, created_at: now / 1000, tags: [['h', 'c1']], content: '' })
  m.apply({ id: 'p1', pubkey: agent, kind: 20001, created_at: now / 1000, tags: [], content: 'online' })
  m.apply(typing('t1'))
  now = t0 + 3000
  m.apply(typing('t2'))
  const l = m.live
  const at = t0 + 5000
  assert.deepEqual(l.working(agent, 'c1', at), { working: true, source: FROM_TYPING, channel: 'c1', since: t0, elapsed: 5000 })
  assert.equal(l.working(agent, 'c2', at).working, false, 'not working in another channel')
  l.turnStarted(agent, 'c1', 'turn1', t0 + 1000)
  assert.deepEqual([l.working(agent, '', at).source, l.working(agent, '', at).elapsed], [FROM_OBSERVER, 4000], 'a turn in flight comes first')
  l.turnEnded(agent, 'turn1')
  assert.equal(l.working(agent, '', at).source, FROM_TYPING)
  assert.equal(l.working(agent, '', now + TYPING_TTL + 1000).working, false, 'typing past its TTL')
  m.apply({ id: 'a1', pubkey: agent, kind: 9, created_at: now / 1000, tags: [['h', 'c1']], content: 'done' })
  assert.deepEqual(l.typing('c1', now), [], 'the answer ends the typing')
  assert.equal(l.presence(agent, now), 'online')
  assert.equal(l.presence(agent, t0 + PRESENCE_TTL + 1000), 'offline')
  m.apply({ id: 't3', pubkey: agent, kind: 20002, created_at: now / 1000, tags: [['h', 'c1']], content: 'stop' })
  assert.deepEqual(l.typing('c1', now), [])
})
