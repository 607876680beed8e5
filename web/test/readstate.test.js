// markRead over a scripted hub (the real hub's answers: web/test/chat.test.js):
// it writes the member's position merged with the mark, nothing when that
// reads no more, and the plain position when the hub refuses the longer
// content as invalid.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { markRead } from '../src/hub/readstate.js'
import { HubError } from '../src/hub/errors.js'

const a = 'a'.repeat(64)
const b = 'b'.repeat(64)
const me = '1'.repeat(64)
const other = '2'.repeat(64)

// scripted is a hub holding stored read-state events, answering each publish with the next of answers (an Error refuses it).
function scripted (stored, answers) {
  const sent = []
  return {
    sent,
    pubkey: me,
    query: async () => stored,
    publish: async tpl => {
      sent.push(tpl.content)
      const next = answers.shift()
      if (next instanceof Error) throw next
      stored = [{ kind: 30078, pubkey: me, created_at: tpl.created_at, content: tpl.content, tags: tpl.tags }]
      return tpl
    }
  }
}

const event = (pubkey, content) => ({ kind: 30078, pubkey, created_at: 1, content, tags: [['d', 'read-state:general']] })

test('markRead merges with the member\'s other keys and skips a mark that reads nothing more', async () => {
  const hub = scripted([event(other, `1700000010 ${b}`)], [null])
  await markRead(hub, 'general', { at: 1700000010, ids: [a] })
  assert.deepEqual(hub.sent, [`1700000010 ${a} ${b}`])
  const again = scripted([event(other, '1700000010')], [])
  assert.equal(await markRead(again, 'general', { at: 1700000010, ids: [a] }), null)
  assert.deepEqual(again.sent, [])
})

test('markRead writes the plain position when the hub refuses the one naming rows as invalid', async () => {
  const hub = scripted([], [new HubError('invalid: content longer than 100 bytes'), null])
  await markRead(hub, 'general', { at: 1700000010, ids: [a, b] })
  assert.deepEqual(hub.sent, [`1700000010 ${a} ${b}`, '1700000010'])
  const refused = scripted([], [new HubError('restricted: not a member')])
  await assert.rejects(markRead(refused, 'general', { at: 1700000010, ids: [a] }), /restricted: not a member/)
})
