// Quotes of messages no page loaded, as client/chat's TestApplyQuotedMessageIsNoRow:
// applyQuoted keeps the message for its quotes without making it a row;
// missingQuotes names it until then; a row of the same id takes its place.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ChatModel } from '../src/model/index.js'

test('a message loaded only for its quotes is no row', () => {
  const alice = 'a'.repeat(64)
  const bob = 'b'.repeat(64)
  const far = 'f'.repeat(64)
  const m = new ChatModel(bob)
  const page = [
    { id: 'q1', pubkey: bob, created_at: 20, kind: 9, tags: [['h', 'general'], ['q', far, '', alice]], content: 'agreed' },
    { id: 'q2', pubkey: bob, created_at: 21, kind: 9, tags: [['h', 'general'], ['q', far]], content: 'me too' },
    { id: 'plain', pubkey: bob, created_at: 22, kind: 9, tags: [['h', 'general']], content: 'hi' }
  ]
  m.applyAll(page)
  assert.deepEqual(m.missingQuotes(page, 10), [far])
  m.applyQuoted({ id: far, pubkey: alice, created_at: 5, kind: 9, tags: [['h', 'ops']], content: 'rollback plan\nstep 1' })
  assert.deepEqual(m.missingQuotes(page, 10), [])
  assert.equal(m.timeline('ops').length, 0)
  assert.equal(m.timeline('general').length, 3)
  const q = m.row('q2').quote
  assert.equal(q.author, alice)
  assert.equal(q.text, 'rollback plan')
  m.apply({ id: 'edit', pubkey: alice, created_at: 30, kind: 40003, tags: [['h', 'ops'], ['e', far]], content: 'rollback plan v2' })
  m.apply({ id: far, pubkey: alice, created_at: 5, kind: 9, tags: [['h', 'ops']], content: 'rollback plan\nstep 1' })
  assert.equal(m.row('q1').quote.text, 'rollback plan v2')
  assert.equal(m.timeline('ops').length, 1)
})

test("a workflow run's card quotes nothing: its q tag is the run's claim", () => {
  const runner = 'c'.repeat(64)
  const m = new ChatModel('b'.repeat(64))
  const card = { id: 'card', pubkey: runner, created_at: 20, kind: 9, tags: [['h', 'ops'], ['q', 'd'.repeat(64)], ['a', '30460:' + 'a'.repeat(64) + ':deploy'], ['hops', '1']], content: '▶ deploy · run dddddddd' }
  m.applyAll([card])
  assert.equal(m.row('card').quote, null)
  assert.deepEqual(m.missingQuotes([card], 10), [])
})
