// The read-position cases Go and JS share (spec/fixtures/readstate,
// kinds/readpos_test.go): what a read-state content reads as, the merge
// over a member's keys and the order a key's position moves in.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { above, formatPosition, mergePositions, parsePosition, position, positionJSON } from '../src/model/position.js'

const fx = JSON.parse(readFileSync(fileURLToPath(new URL('../../spec/fixtures/readstate/positions.json', import.meta.url)), 'utf8'))

test('read positions: parse', () => {
  for (const c of fx.parse) {
    const got = parsePosition(c.content)
    const name = JSON.stringify(c.content.slice(0, 80))
    if (c.position === null) {
      assert.equal(got, null, name)
      continue
    }
    assert.deepEqual(positionJSON(got), positionJSON(c.position), name)
    assert.equal(formatPosition(got), c.content.split(' ').length > 1 ? formatPosition(position(c.position)) : c.content, name)
  }
})

test('read positions: merge', () => {
  for (const c of fx.merge) {
    assert.deepEqual(positionJSON(mergePositions(c.a, c.b)), positionJSON(c.merged), JSON.stringify([c.a, c.b]).slice(0, 200))
    assert.deepEqual(positionJSON(mergePositions(c.b, c.a)), positionJSON(c.merged), JSON.stringify([c.b, c.a]).slice(0, 200))
  }
})

test('read positions: a key moves only up', () => {
  for (const c of fx.above) assert.equal(above(c.to, c.from), c.above, JSON.stringify(c))
})
