// The allow-list markdown of the web chat (web/src/ui/markdown.js): text
// from the hub becomes tokens only; HTML stays literal text and links are
// http(s) only. The browser test renders these tokens and checks that
// nothing runs; here the parser's answers are pinned case by case.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { inline, parse, safeUrl } from '../src/ui/markdown.js'

const texts = (tokens) => tokens.filter(t => t.t === 'text').map(t => t.v).join('')

test('raw HTML stays text: no token carries markup', () => {
  const src = '<script>alert(1)</script> <img src=x onerror=alert(2)> <a href="javascript:alert(3)">x</a>'
  const blocks = parse(src)
  assert.equal(blocks.length, 1)
  assert.deepEqual(blocks[0].c, [{ t: 'text', v: src }])
})

test('links: only absolute http and https URLs become links', () => {
  for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:x', '/relative', 'ftp://host/x', ' javascript:alert(1)', 'java\tscript:alert(1)']) {
    assert.equal(safeUrl(bad), null, bad)
    const toks = inline(`[click](${bad})`)
    assert.ok(!toks.some(t => t.t === 'a'), `[click](${bad}) made a link`)
  }
  assert.equal(safeUrl('https://example.org/a?b=1'), 'https://example.org/a?b=1')
  assert.deepEqual(inline('[docs](https://example.org/d)'), [{ t: 'a', href: 'https://example.org/d', c: [{ t: 'text', v: 'docs' }] }])
})

test('a refused markdown link is shown as its source text', () => {
  assert.deepEqual(inline('see [x](javascript:alert(1))'), [{ t: 'text', v: 'see [x](javascript:alert(1))' }])
})

test('bare links keep sentence punctuation out and balanced parens in', () => {
  assert.deepEqual(inline('go to https://example.org/x.'), [{ t: 'text', v: 'go to ' }, { t: 'a', href: 'https://example.org/x', c: [{ t: 'text', v: 'https://example.org/x' }] }, { t: 'text', v: '.' }])
  const wiki = inline('https://en.wikipedia.org/wiki/Foo_(bar)')
  assert.equal(wiki[0].href, 'https://en.wikipedia.org/wiki/Foo_(bar)')
})

test('emphasis, code and strike nest; code is literal', () => {
  assert.deepEqual(inline('**bold *it* x**'), [{ t: 'b', c: [{ t: 'text', v: 'bold ' }, { t: 'i', c: [{ t: 'text', v: 'it' }] }, { t: 'text', v: ' x' }] }])
  assert.deepEqual(inline('`**not bold** <b>`'), [{ t: 'code', v: '**not bold** <b>' }])
  assert.deepEqual(inline('~~gone~~'), [{ t: 's', c: [{ t: 'text', v: 'gone' }] }])
  assert.equal(texts(inline('2 * 3 * 4')), '2 * 3 * 4')
  assert.equal(texts(inline('snake_case_name')), 'snake_case_name')
})

test('blocks: paragraphs, line breaks, fenced code, quotes, lists', () => {
  const b = parse('one\ntwo\n\n```\n<b>x</b>\n  y\n```\n> quoted\n- a\n- b')
  assert.deepEqual(b.map(x => x.t), ['p', 'pre', 'quote', 'ul'])
  assert.deepEqual(b[0].c, [{ t: 'text', v: 'one' }, { t: 'br' }, { t: 'text', v: 'two' }])
  assert.equal(b[1].v, '<b>x</b>\n  y')
  assert.equal(b[3].items.length, 2)
})

test('an unclosed fence runs to the end as code', () => {
  assert.deepEqual(parse('```\nrm -rf /'), [{ t: 'pre', v: 'rm -rf /' }])
})

test('nostr mentions become mention tokens', () => {
  const npub = 'npub1' + 'q'.repeat(58)
  assert.deepEqual(inline(`hi nostr:${npub}!`), [{ t: 'text', v: 'hi ' }, { t: 'mention', npub }, { t: 'text', v: '!' }])
})

test('deep nesting is bounded', () => {
  const deep = '*'.repeat(0) + '**a ~~b **c ~~d **e ~~f~~ e** d~~ c** b~~ a**'
  const walk = (ts, d) => ts.reduce((m, t) => Math.max(m, t.c ? walk(t.c, d + 1) : d), d)
  assert.ok(walk(inline(deep), 0) <= 5)
})
