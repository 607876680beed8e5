// Channel management from the web chat (web/src/hub/send.js) against the
// real hive serve: the id the page derives from a name is the CLI's, a
// create carries about and visibility, add and leave change the roster,
// and the hub's refusals come back word for word.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { generalHub } from './lib/hub.js'
import { addMember, channelCreateEvent, channelIDFor, leaveChannel, listChannels } from '../src/hub/chat.js'

let hub, alice, bob
before(async () => { ({ hub, alice, bob } = await generalHub()) })
after(() => hub?.stop())

test('channelIDFor gives a name the id hive channel create gives it', async () => {
  for (const name of ['Ops Room', 'Ünïcode! Talk', 'a.b_c-D', 'x'.repeat(70)]) {
    const out = JSON.parse(await hub.as(alice, ['channel', 'create', name, '--json']))
    assert.equal(channelIDFor(name), out.id, name)
  }
  assert.throws(() => channelCreateEvent(channelIDFor('!!!'), '!!!'), /^Error: channel id "": use 1-64 of A-Z a-z 0-9 _ \. - /)
})

test('a private channel with about: created, a member added, leave refused for the last owner, then allowed for the member', async () => {
  const a = await hub.connect(alice.sk)
  await a.publish(channelCreateEvent('plans', 'Plans', 'what ships next', 'private'))
  let [ch] = await listChannels(a, ['plans'])
  assert.deepEqual([ch.name, ch.about, ch.visibility, ch.role], ['Plans', 'what ships next', 'private', 'owner'])
  await assert.rejects(a.publish(channelCreateEvent('plans', 'Plans again')), e => e.reason === 'duplicate: channel plans already exists')
  await addMember(a, 'plans', bob.pk)
  ;[ch] = await listChannels(a, ['plans'])
  assert.equal(ch.members[bob.pk], 'member')
  await assert.rejects(leaveChannel(a, 'plans'), e => e.reason === `invalid: ${alice.pk} is the last owner of plans; make someone else owner first`)
  const b = await hub.connect(bob.sk)
  await leaveChannel(b, 'plans')
  ;[ch] = await listChannels(a, ['plans'])
  assert.deepEqual(Object.keys(ch.members), [alice.pk])
})
