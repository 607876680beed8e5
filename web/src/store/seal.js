// Sealing the browser's secret key at rest with WebCrypto: AES-256-GCM under
// a key derived from the person's passphrase (PBKDF2-SHA256), or, without a
// passphrase, under a non-extractable AES key the browser keeps in
// IndexedDB (so the stored record never holds the key in the clear).

/** iterations of PBKDF2-SHA256 for a passphrase (OWASP's 2023 figure). */
export const PBKDF2_ITERATIONS = 600000;

const subtle = () => globalThis.crypto.subtle;
const enc = new TextEncoder();

/** b64 encodes bytes as base64. */
export function b64(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** unb64 decodes base64 into bytes. */
export function unb64(s) {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

async function passKey(passphrase, salt, iterations) {
  const base = await subtle().importKey('raw', enc.encode(passphrase.normalize('NFKC')), 'PBKDF2', false, ['deriveKey']);
  return subtle().deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/**
 * sealWithPassphrase encrypts secret (bytes) under passphrase. The result is
 * plain JSON: {v, kdf, iter, salt, iv, ct} (base64 fields).
 */
export async function sealWithPassphrase(secret, passphrase, iterations = PBKDF2_ITERATIONS) {
  if (!passphrase) throw new Error('a passphrase is needed');
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await passKey(passphrase, salt, iterations);
  const ct = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv }, key, secret));
  return { v: 1, kdf: 'PBKDF2-SHA256', iter: iterations, salt: b64(salt), iv: b64(iv), ct: b64(ct) };
}

/** openWithPassphrase decrypts what sealWithPassphrase made; a wrong passphrase throws "wrong passphrase". */
export async function openWithPassphrase(sealed, passphrase) {
  if (sealed?.v !== 1 || sealed.kdf !== 'PBKDF2-SHA256') throw new Error('unknown key format; sign in again');
  const key = await passKey(passphrase, unb64(sealed.salt), sealed.iter);
  try {
    return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: unb64(sealed.iv) }, key, unb64(sealed.ct)));
  } catch {
    throw new Error('wrong passphrase');
  }
}

/** sealWithDeviceKey encrypts secret under a fresh non-extractable key: {key, iv, ct}. */
export async function sealWithDeviceKey(secret) {
  const key = await subtle().generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv }, key, secret));
  return { key, iv: b64(iv), ct: b64(ct) };
}

/** openWithDeviceKey decrypts what sealWithDeviceKey made. */
export async function openWithDeviceKey(w) {
  return new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: unb64(w.iv) }, w.key, unb64(w.ct)));
}
