// The surface fixtures (spec/fixtures/session, format in its README), run
// by the page's session parts as client/session's TestSessionFixtures runs
// them in Go: the live feed's filters, a page from a canned hub answer, the
// read-mark decisions and the outbox's states.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ChatModel, positionJSON } from '../src/model/index.js'
import { feedFilters } from '../src/hub/follow.js'
import { fetchPage } from '../src/hub/history.js'
import { dividerStays, readMarks } from '../src/hub/readstate.js'
import { Outbox } from '../src/hub/outbox.js'

const fixture = name => JSON.parse(readFileSync(fileURLToPath(new URL('../../spec/fixtures/session/' + name, import.meta.url)), 'utf8'))

// normal is a filter as JSON with its kinds as a set (sorted).
const normal = f => {
  const out = JSON.parse(JSON.stringify(f))
  if (out.kinds) out.kinds.sort((a, b) => a - b)
  return out
}

test('session fixture: the live feed\'s filters', () => {
  for (const c of fixture('feed.json').cases) {
    assert.deepEqual(feedFilters(c.channels, c.since).map(normal), c.filters.map(normal), c.name)
  }
})

test('session fixture: a page from a canned hub answer', async () => {
  const fx = fixture('page.json')
  let asked = 0
  const hub = {
    query: async filters => {
      assert.equal(filters.length, 1, `query ${asked} asks ${filters.length} filters`)
      const q = fx.queries[asked++]
      assert.ok(q, `query ${asked} was not expected: ${JSON.stringify(filters)}`)
      assert.deepEqual(normal(filters[0]), normal(q.filter), `query ${asked}`)
      return q.answer
    }
  }
  const p = await fetchPage(hub, fx.channel, { limit: fx.limit })
  assert.equal(asked, fx.queries.length)
  assert.deepEqual({ rows: p.rows, start: p.start, oldest: p.oldest, events: p.events.map(e => e.id) }, fx.expect)
})

test('session fixture: the read-mark decisions', () => {
  const fx = fixture('marks.json')
  const m = new ChatModel(fx.me)
  m.applyAll(fx.events)
  const json = marks => Object.fromEntries(Object.entries(marks).map(([k, p]) => [k, positionJSON(p)]))
  for (const c of fx.marks) assert.deepEqual(json(readMarks(m, c.read, c.channel, c.thread)), json(c.marks), c.name)
  for (const c of fx.divider) assert.equal(dividerStays(m, c.read, c.channel, c.divider), c.stays, c.name)
})

test('session fixture: the outbox\'s states', async () => {
  const answers = new Map() // event id -> {resolve, reject} of its publish
  const hub = {
    state: 'connected',
    sign: async tpl => tpl,
    publish: ev => new Promise((resolve, reject) => answers.set(ev.id, { resolve, reject }))
  }
  const o = new Outbox(hub, new ChatModel('me'), () => {}, { showAfter: 0 })
  const settle = () => new Promise(resolve => setTimeout(resolve, 0))
  const steps = fixture('outbox.json').steps
  for (const [i, s] of steps.entries()) {
    if (s.do === 'send') await o.send({ id: s.id, kind: 9, content: s.text, tags: [['h', 'c1']], created_at: 1 })
    else if (s.do === 'refused') answers.get(s.id).reject(Object.assign(new Error(s.reason), { reason: s.reason }))
    else if (s.do === 'stored') answers.get(s.id).resolve({ id: s.id, kind: 9, content: '', tags: [['h', 'c1']], created_at: 1, pubkey: 'me' })
    else if (s.do === 'retry') {
      const it = o.items.get(s.id)
      const ok = !!it && it.state === 'failed'
      o.retry(s.id)
      assert.equal(ok, s.ok, `step ${i}: retry ${s.id}`)
    } else if (s.do === 'discard') assert.equal(o.discard(s.id), s.text, `step ${i}: discard ${s.id}`)
    else assert.fail(`step ${i}: no action ${s.do}`)
    await settle()
    const got = [...o.items.values()].map(({ ev, state, reason, attempt }) => ({ id: ev.id, state, attempt, reason }))
    assert.deepEqual(got, s.expect, `step ${i} (${s.do} ${s.id})`)
  }
  o.close()
})
