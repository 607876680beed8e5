// Key formats (web/src/keys): nsec, ncryptsec (NIP-49), hex and npub, with
// the errors a person sees; NIP-OA tags with the spec's vector and its
// invalid cases.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as keys from '../src/keys/index.js'

test('nsec, ncryptsec and hex read to the same key; the errors name the fix', () => {
  const sk = keys.generateSecretKey()
  const hex = keys.bytesToHex(sk)
  const nsec = keys.encodeNsec(sk)
  const enc = keys.encryptNcryptsec(sk, 'correct horse', 8)
  for (const [input, pass] of [[nsec, undefined], ['  ' + nsec + '\n', undefined], [hex, undefined], [hex.toUpperCase(), undefined], [enc, 'correct horse']]) {
    assert.equal(keys.bytesToHex(keys.parseSecretKey(input, pass)), hex, input.slice(0, 12))
  }
  assert.throws(() => keys.parseSecretKey(enc), e => e.needsPassphrase && /give its passphrase/.test(e.message))
  assert.throws(() => keys.parseSecretKey(enc, 'wrong'), e => e.needsPassphrase && /wrong passphrase/.test(e.message))
  assert.throws(() => keys.parseSecretKey(keys.encodeNpub(keys.publicKeyOf(sk))), /this is a public key \(npub\)/)
  assert.throws(() => keys.parseSecretKey('hello'), /not a key: paste an nsec1/)
  const flipped = nsec.slice(0, -1) + (nsec.endsWith('q') ? 'p' : 'q') // always a different last character
  assert.throws(() => keys.parseSecretKey(flipped), /not a valid nsec/)
  const pk = keys.publicKeyOf(sk)
  assert.equal(keys.decodeNpub(keys.encodeNpub(pk)), pk)
  assert.equal(keys.decodeNpub(pk), pk)
  assert.throws(() => keys.decodeNpub(nsec), /not an npub/)
  assert.match(keys.shortNpub(pk), /^npub1[0-9a-z]{7}…[0-9a-z]{4}$/)
})

test('NIP-OA: the spec vector verifies; malformed tags and conditions are refused', () => {
  const owner = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'
  const agent = 'c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5'
  const sig = '8b7df2575caf0a108374f8471722b233c53f9ff827a8b0f91861966c3b9dd5cb2e189eae9f49d72187674c2f5bd244145e10ff86c9f257ffe65a1ee5f108b369'
  const tag = ['auth', owner, 'kind=1&created_at<1713957000', sig]
  const a = keys.verifyAuthTag(tag, agent)
  assert.deepEqual([a.owner, a.device, a.conditions.kinds, a.conditions.before], [owner, false, [1], 1713957000])
  assert.throws(() => keys.verifyAuthTag(tag, owner), /self-attestation|does not match/)
  assert.throws(() => keys.verifyAuthTag(['auth', owner, 'kind=1&created_at<1713957001', sig], agent), /does not match/)
  assert.throws(() => keys.verifyAuthTag(tag.slice(0, 3), agent), /want 4 elements/)
  for (const bad of ['kind=1&', 'kind=01', 'kind=1 ', 'kind=65536', 'created_at<4294967296', 'kind=+1', 'expires=5', '&kind=1']) {
    assert.throws(() => keys.parseConditions(bad), /malformed NIP-OA conditions/, bad)
  }
  assert.equal(keys.findAuthTag({ tags: [tag, tag] }), null, 'two auth tags count as none')
  assert.ok(keys.isDeviceConditions('created_at>0&created_at<5'))
  assert.ok(!keys.isDeviceConditions('created_at>01'))
})
