// The browser's identity, kept in IndexedDB: one record holding the public
// key and what the hub needs (the owner's device attestation, hub URLs, pin)
// and the secret key sealed by seal.js (with the person's passphrase when
// they set one). A NIP-07 sign-in stores only the public key. forget()
// deletes the whole database.
import { openWithDeviceKey, openWithPassphrase, sealWithDeviceKey, sealWithPassphrase } from './seal.js';

const DB = 'hive-web';
const STORE = 'identity';
const ID = 'me';

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error || new Error('IndexedDB request failed'));
  });
}

async function db() {
  const open = indexedDB.open(DB, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE, { keyPath: 'id' });
  return request(open);
}

async function tx(mode, fn) {
  const d = await db();
  try {
    const t = d.transaction(STORE, mode);
    const done = new Promise((resolve, reject) => {
      t.oncomplete = resolve;
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error || new Error('IndexedDB transaction aborted'));
    });
    const result = await request(fn(t.objectStore(STORE)));
    await done;
    return result;
  } finally {
    d.close();
  }
}

/**
 * loadIdentity returns the stored identity without its secret, or null:
 * {kind: 'local'|'nip07', pubkey, owner, auth, hubs, pin, name, locked}.
 * locked is true when a passphrase is needed (unlock).
 */
export async function loadIdentity() {
  const rec = await tx('readonly', (s) => s.get(ID));
  if (!rec) return null;
  const { sealed, wrapped, ...pub } = rec;
  return { ...pub, locked: !!sealed };
}

/** unlock returns the stored secret key (32 bytes); passphrase when locked. */
export async function unlock(passphrase) {
  const rec = await tx('readonly', (s) => s.get(ID));
  if (!rec || rec.kind !== 'local') throw new Error('no key is stored in this browser');
  if (rec.sealed) return openWithPassphrase(rec.sealed, passphrase || '');
  return openWithDeviceKey(rec.wrapped);
}

/**
 * saveLocal stores a secret key (bytes) with its public data
 * ({pubkey, owner, auth, hubs, pin, name}); passphrase seals it when given.
 */
export async function saveLocal(secretKey, pub, passphrase) {
  const seal = passphrase ? { sealed: await sealWithPassphrase(secretKey, passphrase) } : { wrapped: await sealWithDeviceKey(secretKey) };
  await tx('readwrite', (s) => s.put({ ...pub, ...seal, id: ID, kind: 'local', savedAt: Date.now() }));
}

/** saveExtension stores a NIP-07 sign-in (the extension keeps the key). */
export async function saveExtension(pubkey) {
  await tx('readwrite', (s) => s.put({ id: ID, kind: 'nip07', pubkey, savedAt: Date.now() }));
}

/** forget deletes every stored key and setting of this app in this browser. */
export async function forget() {
  await request(indexedDB.deleteDatabase(DB));
}
