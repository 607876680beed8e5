// The shared chat-model fixtures (spec/fixtures, format in its README) run
// against the JS model exactly as client/chat's TestFixtures runs them: in
// log order, reversed, one by one with views read between events and then
// all again (duplicates), and shuffled with 20 seeds.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { ChatModel, cleanName, runWords } from '../src/model/index.js'
import { shuffle } from './lib/shuffle.js'
import { asGo } from './lib/gorow.js'

const dir = fileURLToPath(new URL('../../spec/fixtures/', import.meta.url))
const files = readdirSync(dir).filter(f => f.endsWith('.json')).sort()

// The row fields a fixture checks only where it gives them.
const optional = ['channel', 'author', 'created_at', 'kind', 'mentions', 'edited_at', 'receipts', 'quote', 'run']

function shown (rows, want) {
  return rows.map((r, i) => {
    const o = asGo(r)
    if (i < want.length) for (const f of optional) if (!(f in want[i])) delete o[f]
    return o
  })
}

function unreadOf (u) { return { unread: u.unread || 0, mentions: u.mentions || 0, first_unread: u.first_unread || '' } }

function check (fx, how, m) {
  const ex = fx.expect
  const views = [['timeline', ex.timelines, id => m.timeline(id)], ['main', ex.main, id => m.main(id)], ['thread', ex.threads, id => m.thread(id)]]
  for (const [name, wants, fn] of views) {
    for (const [id, want] of Object.entries(wants || {})) {
      assert.deepStrictEqual(shown(fn(id), want), want, `${fx.name} (${how}): ${name} ${id}`)
    }
  }
  for (const [ch, want] of Object.entries(ex.unread || {})) {
    assert.deepStrictEqual(unreadOf(m.unread(ch, fx.read)), unreadOf(want), `${fx.name} (${how}): unread ${ch}`)
  }
  for (const [root, want] of Object.entries(ex.thread_unread || {})) {
    assert.deepStrictEqual(unreadOf(m.threadUnread(root, fx.read)), unreadOf(want), `${fx.name} (${how}): thread unread ${root}`)
  }
  for (const [pk, want] of Object.entries(ex.names || {})) {
    assert.equal(m.names.name(pk), want.name, `${fx.name} (${how}): name of ${pk.slice(0, 8)}`)
    assert.equal(m.names.label(pk), want.label, `${fx.name} (${how}): label of ${pk.slice(0, 8)}`)
  }
  for (const [id, want] of Object.entries(ex.shown || {})) {
    const r = m.row(id)
    assert.ok(r, `${fx.name} (${how}): row ${id} is shown`)
    assert.equal(m.text(r), want, `${fx.name} (${how}): shown text of ${id}`)
  }
  for (const [id, want] of Object.entries(ex.run_words || {})) {
    const r = m.row(id)
    assert.ok(r && r.run, `${fx.name} (${how}): row ${id} has a run badge`)
    assert.equal(runWords(r.run, s => new Date(s * 1000).toISOString().slice(11, 16)), want, `${fx.name} (${how}): run words of ${id}`)
  }
  for (const [given, want] of Object.entries(ex.clean_names || {})) {
    assert.equal(cleanName(given), want, `${fx.name}: cleanName(${JSON.stringify(given)})`)
  }
  for (const [name, want] of Object.entries(ex.lookup || {})) {
    assert.deepStrictEqual(m.names.lookup(name), want || [], `${fx.name} (${how}): lookup ${JSON.stringify(name)}`)
  }
}

test('spec/fixtures exist', () => assert.ok(files.length >= 5, `only ${files.length} fixtures in ${dir}`))

for (const f of files) {
  const fx = JSON.parse(readFileSync(join(dir, f), 'utf8'))
  const log = [...fx.events, ...(fx.older || []).flat()]
  test(`fixture ${fx.name}`, async t => {
    await t.test('log order', () => {
      const m = new ChatModel(fx.me)
      m.applyAll(log)
      check(fx, 'log order', m)
    })
    await t.test('pages: newest first, then each older page', () => {
      const m = new ChatModel(fx.me)
      m.applyAll(fx.events)
      for (const p of fx.older || []) m.applyAll(p)
      check(fx, 'pages', m)
    })
    await t.test('reversed', () => {
      const m = new ChatModel(fx.me)
      for (let i = log.length - 1; i >= 0; i--) m.apply(log[i])
      check(fx, 'reversed', m)
    })
    await t.test('one by one, twice', () => {
      const m = new ChatModel(fx.me)
      for (const ev of log) {
        m.apply(ev)
        for (const ch of m.channels()) { m.timeline(ch); m.unread(ch, fx.read) }
      }
      m.applyAll(log)
      check(fx, 'one by one, twice', m)
    })
    await t.test('shuffled', () => {
      for (let seed = 1; seed <= 20; seed++) {
        const m = new ChatModel(fx.me)
        m.applyAll(shuffle(log, seed))
        check(fx, `shuffled seed ${seed}`, m)
      }
    })
  })
}
