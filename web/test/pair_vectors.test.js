// The published NIP-AB v1 test vectors (spec/fixtures/pairing, as
// pairing/crypto_test.go checks them) and the URI rules of pairing/uri.go.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { bytesToHex, hexToBytes } from '../src/keys/hex.js'
import { publicKeyOf } from '../src/keys/index.js'
import { ecdh, sasCode, sasInput, sessionID, transcriptHash } from '../src/pair/crypto.js'
import { encodePairURI, parsePairURI } from '../src/pair/uri.js'

// the one copy of the vectors, which pairing/crypto_test.go reads too
const raw = JSON.parse(readFileSync(fileURLToPath(new URL('../../spec/fixtures/pairing/nip-ab-v1.json', import.meta.url)), 'utf8'))
const V = {
  secret: raw.secret,
  sourceSK: raw.source_sk,
  sourcePK: raw.source_pk,
  targetSK: raw.target_sk,
  targetPK: raw.target_pk,
  sessionID: raw.session_id,
  ecdh: raw.ecdh,
  sasInput: raw.sas_input,
  sas: raw.sas,
  transcript: raw.transcript_hash
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
