// When a watcher sends its watch again (web/src/hub/observer.js's bridgeUp,
// client.KeepWatch's rule): for a bridge connection it has not seen.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bridgeUp } from '../src/hub/observer.js'

test('bridgeUp: a watch is renewed for a new bridge connection only (client.KeepWatch\'s rule)', () => {
  const run = { conn: 0, offline: false }
  const steps = [
    ['{"state":"idle","conn":100}', true],
    ['{"state":"working","conn":100}', false],
    ['{"state":"idle","conn":200}', true],
    ['{"state":"offline","conn":200}', false],
    ['{"state":"idle","conn":300}', true],
    ['{"state":"offline"}', false],
    ['{"state":"idle"}', true],
    ['{"state":"idle"}', false],
    ['not json', false]
  ]
  for (const [content, renew] of steps) assert.equal(bridgeUp(run, { content }), renew, content)
})
