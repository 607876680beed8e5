// client/chat's TestShuffledLog in JS: a random log (same-second ties, rows
// without an ms tag, replies whose clock is behind their question's, edits,
// reactions, deletes and retractions of all of them) applied shuffled, in
// halves and twice gives the views of the log in its own order; and every
// reply comes after what it answers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ChatModel, KIND, threadRoot } from '../src/model/index.js'
import { shuffle } from './lib/shuffle.js'

const keys = [
  '0212a0665ddc4e2d9d466e0d2d1f1e41261fe9baf7522ff06f15512d34e5ebb6',
  'e42c088336bf12314b49251b2149ccfd2eb0f03a6f75fa99f12e159ff2d751ee',
  'bc26df1e3180a4184f3f7370a4b8b8f6713bd1234d960632dbbe43dcf90462de',
  '037d234fad80201dd12c3060872b71398b83b45765d263e32c90eadf4f754c34'
]

function randomLog (seed, n) {
  let s = seed
  const r = k => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return Math.floor((s / 4294967296) * k) }
  const log = []
  const msgs = []
  const overlays = []
  const id = () => r(0x7fffffff).toString(16).padStart(8, '0') + r(0x7fffffff).toString(16).padStart(8, '0')
  const h = ev => ev.tags.find(t => t[0] === 'h')[1]
  while (log.length < n) {
    const ev = { id: id(), pubkey: keys[r(keys.length)], created_at: 1700000000 + r(12), tags: [], content: '', sig: '' }
    if (r(3) > 0) ev.tags.push(['ms', String(r(1000))])
    const p = r(100)
    if (p < 45 || msgs.length === 0) {
      ev.kind = KIND.Message
      let ch = ['c1', 'c2'][r(2)]
      if (msgs.length > 0 && r(2) === 0) {
        const parent = msgs[r(msgs.length)]
        ch = h(parent)
        const root = threadRoot(parent)
        ev.tags.push(['e', root, '', 'root'])
        if (root !== parent.id) ev.tags.push(['e', parent.id, '', 'reply'])
        ev.created_at = parent.created_at - r(2) // a clock behind
      }
      if (r(4) === 0) ev.tags.push(['p', keys[0], '', 'mention'])
      ev.tags.push(['h', ch])
      ev.content = 'm' + ev.id.slice(0, 4)
      msgs.push(ev)
    } else if (p < 50) {
      ev.kind = KIND.SystemRow
      ev.pubkey = 'ff'
      ev.tags.push(['h', 'c1'])
    } else if (p < 62) {
      const t = msgs[r(msgs.length)]
      ev.kind = KIND.Edit
      ev.content = 'edit ' + ev.id.slice(0, 4)
      ev.tags.push(['h', h(t)], ['e', t.id])
      overlays.push(ev)
    } else if (p < 82) {
      const t = msgs[r(msgs.length)]
      ev.kind = KIND.Reaction
      ev.content = ['👍', '🎉', '', '+'][r(4)]
      ev.tags.push(['e', t.id])
      overlays.push(ev)
    } else if (p < 91) {
      const t = msgs[r(msgs.length)]
      ev.kind = KIND.DeleteInChannel
      ev.tags.push(['h', h(t)], ['e', t.id])
    } else {
      ev.kind = KIND.Deletion
      if (overlays.length > 0 && r(2) === 0) ev.tags.push(['e', overlays[r(overlays.length)].id])
      else ev.tags.push(['e', msgs[r(msgs.length)].id])
    }
    log.push(ev)
  }
  return log
}

function snap (m, log, rp) {
  const s = { timelines: {}, mains: {}, threads: {}, unread: {} }
  for (const ch of ['c1', 'c2']) {
    s.timelines[ch] = m.timeline(ch)
    s.mains[ch] = m.main(ch)
    s.unread[ch] = m.unread(ch, rp)
  }
  for (const e of log) {
    if (e.kind === KIND.Message) {
      s.threads[e.id] = m.thread(e.id)
      s.unread['thread:' + e.id] = m.threadUnread(e.id, rp)
    }
  }
  return s
}

test('a shuffled random log gives the views of the log in order', () => {
  for (let seed = 1; seed <= 30; seed++) {
    const log = randomLog(seed, 400)
    const rp = { c1: 1700000004, c2: 1700000007 }
    for (const e of log.slice(0, 40)) if (e.kind === KIND.Message) rp['thread:' + e.id] = e.created_at + 2
    const ref = new ChatModel(keys[0])
    ref.applyAll(log)
    const want = snap(ref, log, rp)
    for (const [ch, rows] of Object.entries(want.timelines)) {
      const at = new Map(rows.map((r, i) => [r.id, i]))
      rows.forEach((r, i) => {
        if (at.has(r.reply_to)) assert.ok(at.get(r.reply_to) < i, `seed ${seed} ${ch}: ${r.id} before the message it answers`)
        if (r.root && at.has(r.root)) assert.ok(at.get(r.root) < i, `seed ${seed} ${ch}: ${r.id} before its root`)
        if (r.root) { const root = ref.row(r.root); if (root) assert.ok(root.replies > 0, `seed ${seed}: root ${r.root} counts no reply`) }
      })
    }
    assert.ok(want.timelines.c1.length + want.timelines.c2.length > 50, 'the log shows rows')
    for (let run = 0; run < 5; run++) {
      const sh = shuffle(log, seed * 100 + run)
      const m = new ChatModel(keys[0])
      const half = sh.length >> 1
      m.applyAll(sh.slice(0, half))
      snap(m, log, rp) // views read midway change nothing
      m.applyAll(sh.slice(half))
      m.applyAll(sh.slice(0, half))
      assert.deepStrictEqual(snap(m, log, rp), want, `seed ${seed} run ${run}: a shuffled log gives other views`)
    }
  }
})
