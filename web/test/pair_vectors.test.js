// The published NIP-AB v1 test vectors (as pairing/crypto_test.go checks
// them) and the URI rules of pairing/uri.go.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bytesToHex, hexToBytes } from '../src/keys/hex.js'
import { publicKeyOf } from '../src/keys/index.js'
import { ecdh, sasCode, sasInput, sessionID, transcriptHash } from '../src/pair/crypto.js'
import { encodePairURI, parsePairURI } from '../src/pair/uri.js'

const V = {
  secret: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2',
  sourceSK: '7f4c11a9c9d1e3b5a7f2e4d6c8b0a2f4e6d8c0b2a4f6e8d0c2b4a6f8e0d2c4b5',
  sourcePK: '199e64ca60662cb2d6e91d16cb065be51ad74a6ee5f8c5b0fdc53d246611ed9a',
  targetSK: '3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b',
  targetPK: '89a9fa762105d0aee2b19678246fe7b823aabbc4f4bf691a1ce8a70fcd36d6e4',
  sessionID: 'fb357d0f8e8d5a5ba3b2a91cb18c119e1567b07ffa38cdebb73e68df78f5a380',
  ecdh: '9b4b6d6990713d89d6d9982e506ee1bbcde6f05c54d9d2978696e8a7274d4408',
  sasInput: 'e8b03a329f3a0ac37fe7fbe929171e14b72812be67e33c5d6e193543c41798d3',
  sas: '863346',
  transcript: 'd662818ff8911fc60a2d025f8b8b4756107104e85888dd202d28db5ca2cf28d3'
}

test('NIP-AB v1 vectors', () => {
  const secret = hexToBytes(V.secret)
  assert.equal(publicKeyOf(V.sourceSK), V.sourcePK)
  assert.equal(publicKeyOf(V.targetSK), V.targetPK)
  const sid = sessionID(secret)
  assert.equal(bytesToHex(sid), V.sessionID)
  const st = ecdh(hexToBytes(V.sourceSK), V.targetPK)
  const ts = ecdh(hexToBytes(V.targetSK), V.sourcePK)
  assert.equal(bytesToHex(st), V.ecdh)
  assert.equal(bytesToHex(ts), V.ecdh)
  const si = sasInput(ts, secret)
  assert.equal(bytesToHex(si), V.sasInput)
  assert.equal(sasCode(si), V.sas)
  assert.equal(bytesToHex(transcriptHash(sid, V.sourcePK, V.targetPK, si, secret)), V.transcript)
})

test('pairing URIs: the v1 encoding round-trips; every malformed one is refused with its reason', () => {
  const good = encodePairURI({ sourcePk: V.sourcePK, secretHex: V.secret, relays: ['wss://devbox.lan:7447/pair'], pin: 'sha256/AbC+/=' })
  assert.equal(good, `nostrpair://${V.sourcePK}?secret=${V.secret}&relay=wss%3A%2F%2Fdevbox%2Elan%3A7447%2Fpair&pin=sha256%2FAbC%2B%2F%3D&v=1`)
  const u = parsePairURI(good)
  assert.deepEqual([u.sourcePk, bytesToHex(u.secret), u.relays, u.pin], [V.sourcePK, V.secret, ['wss://devbox.lan:7447/pair'], 'sha256/AbC+/='])
  assert.deepEqual(parsePairURI(good.replace('&v=1', '') + '&x=1&junk').relays, ['wss://devbox.lan:7447/pair'], 'unknown parameters and a missing v are fine')
  const base = `nostrpair://${V.sourcePK}?secret=${V.secret}&relay=ws%3A%2F%2Fh%3A1`
  const bad = {
    [base.replace('nostrpair', 'nostr')]: 'it must start with nostrpair://',
    [`nostrpair://${V.sourcePK}`]: 'no parameters',
    [base.replace(V.sourcePK, V.sourcePK.toUpperCase())]: 'the public key must be 64 lowercase hex characters',
    [base.replace(V.sourcePK, 'f'.repeat(64))]: 'is not an x-coordinate on secp256k1',
    [base.replace(V.secret, '0'.repeat(64))]: 'the all-zero secret is refused',
    [base.replace(V.secret, V.secret.slice(2))]: 'secret must be 64 lowercase hex characters',
    [base + '&secret=' + V.secret]: 'parameter "secret" given twice',
    [base + '&v=2']: 'unsupported pairing protocol version; update hive',
    [base + '&v=x']: 'is not a version number',
    [base.replace(/&relay=.*/, '')]: 'no relay',
    [base.replace(/&relay=.*/, '&relay=https%3A%2F%2Fh')]: 'want a ws:// or wss:// URL',
    [base + '&relay=%zz']: 'bad percent-encoding',
    [base + '&pin=md5%2Fx']: 'pin must be sha256/<base64>',
    [base + '&' + 'x'.repeat(2048)]: 'the limit is 2048',
    [`nostrpair://${V.sourcePK}?relay=ws%3A%2F%2Fh%3A1`]: 'no secret'
  }
  for (const [uri, why] of Object.entries(bad)) {
    assert.throws(() => parsePairURI(uri), e => e.message.includes(why), `${uri.slice(0, 120)} should fail with ${why}`)
  }
})
