// The JS chat model's costs at a channel of 5,000 messages (issue 21's
// budgets: a channel's first paint < 1 s, a live message to the screen
// < 100 ms): applying the page, the main view, one live message and its
// view again, and unread. Run: node bench/model.mjs
import { ChatModel } from '../src/model/index.js'

const me = 'a'.repeat(64)
const others = ['b', 'c', 'd', 'e'].map(c => c.repeat(64))
function log (n) {
  const evs = []
  const t0 = 1700000000
  for (let i = 0; i < n; i++) {
    const id = i.toString(16).padStart(64, '0')
    const ev = { id, pubkey: others[i % 4], created_at: t0 + Math.floor(i / 3), kind: 9, tags: [['h', 'c'], ['ms', String((i % 3) * 300)]], content: `message ${i}`, sig: '' }
    if (i % 10 === 5) ev.tags.push(['e', (i - 5).toString(16).padStart(64, '0'), '', 'root'])
    evs.push(ev)
    if (i % 7 === 0) evs.push({ id: 'r' + id.slice(1), pubkey: others[(i + 1) % 4], created_at: t0 + Math.floor(i / 3) + 1, kind: 7, tags: [['e', id]], content: '👍', sig: '' })
  }
  return evs
}
function time (what, fn, runs = 5) {
  let best = Infinity
  let out
  for (let r = 0; r < runs; r++) {
    const t = performance.now()
    out = fn()
    best = Math.min(best, performance.now() - t)
  }
  console.log(`${what}: ${best.toFixed(2)} ms (best of ${runs})`)
  return out
}
const evs = log(5000)
const m = time('apply 5,000 messages (+715 reactions) to a new model', () => { const m = new ChatModel(me); m.applyAll(evs); return m })
time('main view of the channel (4,500 top-level rows)', () => m.main('c'))
time('unread of the channel', () => m.unread('c', { c: 1700000900 }))
let k = 0
time('one live message: apply + main view again', () => {
  m.apply({ id: 'f' + String(k++).padStart(63, '0'), pubkey: others[0], created_at: 1700002000 + k, kind: 9, tags: [['h', 'c']], content: 'live', sig: '' })
  return m.main('c')
})
