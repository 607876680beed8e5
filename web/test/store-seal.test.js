// Sealing the browser's key at rest (web/src/store/seal.js): WebCrypto
// AES-GCM under PBKDF2 from the passphrase, or under a non-extractable key.
// Node 20 has the same WebCrypto the browser has.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { openWithDeviceKey, openWithPassphrase, sealWithDeviceKey, sealWithPassphrase } from '../src/store/seal.js'

const secret = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
const hexOf = (b) => Buffer.from(b).toString('hex')

test('a passphrase seal opens with the passphrase and never holds the key in the clear', async () => {
  const sealed = await sealWithPassphrase(secret, 'correct horse', 1000)
  assert.equal(sealed.kdf, 'PBKDF2-SHA256')
  const json = JSON.stringify(sealed)
  assert.ok(!json.includes(hexOf(secret)) && !json.includes(Buffer.from(secret).toString('base64')))
  assert.deepEqual(await openWithPassphrase(sealed, 'correct horse'), secret)
})

test('a wrong passphrase is refused with "wrong passphrase"', async () => {
  const sealed = await sealWithPassphrase(secret, 'correct horse', 1000)
  await assert.rejects(openWithPassphrase(sealed, 'battery staple'), { message: 'wrong passphrase' })
  await assert.rejects(openWithPassphrase({ ...sealed, ct: sealed.ct.replace(/^./, c => c === 'A' ? 'B' : 'A') }, 'correct horse'), { message: 'wrong passphrase' })
})

test('each seal has its own salt and IV', async () => {
  const a = await sealWithPassphrase(secret, 'p', 1000)
  const b = await sealWithPassphrase(secret, 'p', 1000)
  assert.notEqual(a.salt, b.salt)
  assert.notEqual(a.iv, b.iv)
  assert.notEqual(a.ct, b.ct)
})

test('the default iteration count is at least 600000', async () => {
  const { PBKDF2_ITERATIONS } = await import('../src/store/seal.js')
  assert.ok(PBKDF2_ITERATIONS >= 600000)
})

test('an empty passphrase is refused at sealing', async () => {
  await assert.rejects(sealWithPassphrase(secret, ''), { message: 'a passphrase is needed' })
})

test('a device-key seal uses a non-extractable key', async () => {
  const w = await sealWithDeviceKey(secret)
  assert.equal(w.key.extractable, false)
  await assert.rejects(globalThis.crypto.subtle.exportKey('raw', w.key))
  assert.deepEqual(await openWithDeviceKey(w), secret)
})
