// client/observer's transcript reducer tests, in JS: frames out of order,
// a lost frame counted as a gap and filled when it arrives late, a tool's
// status never moving back, a permission request sent again shown once.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Transcript } from '../src/model/index.js'

const frame = (seq, dir, msg) => ({ v: 1, seq, channel: 'c', session: 's1', turn: 'm1', dir, msg: JSON.parse(msg) })

test('the transcript reducer folds a turn', () => {
  const tr = new Transcript()
  for (const f of [
    frame(1, 'out', '{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"do it"}]}}'),
    frame(2, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}}}'),
    frame(3, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"read","status":"completed"},{"content":"write","status":"pending"}]}}}'),
    frame(4, 'in', '{"jsonrpc":"2.0","id":"p-7","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"rm -rf build"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}'),
    frame(5, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"rm -rf build","kind":"execute","status":"pending"}}}')
  ]) tr.apply(f)
  const p = tr.pending()
  assert.equal(p.length, 1)
  assert.equal(p[0].request, 'p-7')
  assert.deepEqual(p[0].options.map(o => o.id), ['ok', 'no'])
  assert.equal(p[0].title, 'rm -rf build')
  assert.equal(tr.inFlight().length, 1)
  const evs = tr.apply(frame(7, 'out', '{"jsonrpc":"2.0","id":"p-7","result":{"outcome":{"outcome":"selected","optionId":"ok"}}}'))
  assert.equal(tr.gaps, 1)
  assert.deepEqual(evs.map(e => e.kind), ['answered'])
  tr.apply(frame(6, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"in_progress"}}}'))
  assert.equal(tr.gaps, 0, 'a late frame fills its gap')
  tr.apply(frame(8, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}'))
  tr.apply(frame(9, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done "}}}}'))
  tr.apply(frame(10, 'in', '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"now"}}}}'))
  tr.apply(frame(11, 'in', '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'))
  assert.equal(tr.turns.length, 1)
  const t = tr.turns[0]
  assert.deepEqual([t.prompt, t.thoughts, t.text, t.stop], ['do it', 'hmm', 'done now', 'end_turn'])
  assert.deepEqual(t.tools, [{ id: 't1', title: 'rm -rf build', kind: 'execute', status: 'completed' }])
  assert.deepEqual(t.plan.map(x => x.status), ['completed', 'pending'])
  assert.equal(t.permissions[0].answer, 'ok')
  assert.equal(tr.pending().length, 0)
  assert.equal(tr.inFlight().length, 0)
})

test('a late tool_call keeps the newer status; a request sent again is shown once; a load replay is history', () => {
  const tr = new Transcript()
  tr.apply(frame(2, 'in', '{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}'))
  tr.apply(frame(1, 'in', '{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"read","status":"pending"}}}'))
  assert.deepEqual([tr.turns[0].tools[0].status, tr.turns[0].tools[0].title], ['completed', 'read'])
  const ask = '{"id":9,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t2","title":"write"},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}}'
  tr.apply(frame(3, 'in', ask))
  tr.apply(frame(4, 'in', ask))
  assert.equal(tr.pending().length, 1)
  tr.apply({ v: 1, seq: 5, channel: 'c', session: 's1', turn: 'load:s1', dir: 'in', msg: JSON.parse('{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"text":"old answer"}}}}') })
  assert.equal(tr.turns.length, 1)
  assert.equal(tr.history.length, 1)
  assert.equal(tr.history[0].text, 'old answer')
})

test('after a bridge restart a request with an answered id is new, its resent copy is not, a dead run\'s waiting one is cancelled', () => {
  const ask = '{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"ls"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}'
  const inTurn = (seq, turn, resent) => ({ ...frame(seq, 'in', ask), turn, ...(resent ? { resent: true } : {}) })
  const tr = new Transcript()
  tr.apply(inTurn(1, 'm1'))
  tr.apply(frame(2, 'out', '{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}'))
  assert.deepEqual(tr.apply(inTurn(1, 'm2')).map(e => e.kind), ['permission'], 'the restarted bridge\'s request')
  assert.deepEqual(tr.pending(), [tr.turns[1].permissions[0]])
  assert.deepEqual(tr.apply(inTurn(2, 'm2', true)), [], 'the resent copy')
  assert.equal(tr.pending().length, 1)
  tr.apply(inTurn(1, 'm3'))
  assert.deepEqual(tr.pending(), [tr.turns[2].permissions[0]])
  assert.equal(tr.turns[1].permissions[0].answer, 'cancelled')
})

test('the next bridge run ends a turn its last run left in flight', () => {
  const prompt = '{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"do it"}]}}'
  const ended = '{"ended":"bridge_restarted"}'
  const tr = new Transcript()
  tr.apply(frame(1, 'out', prompt))
  assert.equal(tr.inFlight().length, 1)
  const evs = tr.apply(frame(1, 'bridge', ended))
  assert.deepEqual(evs.map(e => e.kind), ['stop'])
  assert.equal(tr.inFlight().length, 0)
  assert.equal(tr.turns[0].stop, 'bridge_restarted')
  tr.apply(frame(2, 'out', prompt))
  assert.equal(tr.inFlight().length, 1, 'a turn prompted again is in flight again')
  tr.apply(frame(3, 'in', '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'))
  tr.apply(frame(4, 'bridge', ended))
  assert.equal(tr.turns[0].stop, 'end_turn', 'a note never replaces the agent\'s stop')
  assert.deepEqual(tr.apply({ ...frame(5, 'bridge', ended), turn: 'm2' }), [])
  assert.equal(tr.turns.length, 1, 'a note on a turn never seen makes none')
})
