// The shared invite fixtures (spec/fixtures/invites/links.json) against the
// page's parseInvite, as client's TestInviteFixtures runs them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { parseInvite } from '../src/hub/invite.js'

const fx = JSON.parse(readFileSync(new URL('../../spec/fixtures/invites/links.json', import.meta.url), 'utf8'))

for (const c of fx.links) {
  test(`invite: ${c.name}`, () => {
    if (c.error) assert.throws(() => parseInvite(c.in), { message: c.error })
    else assert.deepStrictEqual(parseInvite(c.in), { hub: c.hub, claim: c.claim })
  })
}
