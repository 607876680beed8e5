// The interop suites' hub: the real hive binary (HIVE_BIN) as a child
// process on a free loopback port, and a timeout for client promises.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import assert from 'node:assert/strict'

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

// startSQLiteHub runs HIVE_BIN's hive serve over SQLite on a free port with
// data in a new temp dir named by prefix, and extra serve flags; it returns
// { hub, dataDir, url }.
export async function startSQLiteHub (prefix, adminPK, extra = []) {
  const bin = process.env.HIVE_BIN
  assert.ok(bin, 'HIVE_BIN must name a built hive binary (make test-interop sets it)')
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  const addr = `127.0.0.1:${await freePort()}`
  const hub = await startHub(bin, addr, dataDir, adminPK, '', extra)
  return { hub, dataDir, url: `ws://${addr}` }
}

// startHub runs hive serve on addr with data in dir and adminPK as its
// admin, over the PostgreSQL log at storeURL if given (make test-interop's
// second run sets HIVE_STORE; one suite at a time may use that database).
export function startHub(bin, addr, dir, adminPK, storeURL = process.env.HIVE_STORE, extra = []) {
  let hubLog = ''
  return new Promise((resolve, reject) => {
    const store = storeURL ? ['--store', storeURL] : []
    const child = spawn(bin, ['serve', '--addr', addr, '--data', dir, '--admin', adminPK, ...store, ...extra], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`hub did not log "hive hub serving" within 20 s:\n${hubLog}`))
    }, 20_000)
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk) => {
      hubLog += chunk
      if (hubLog.includes('hive hub serving')) {
        clearTimeout(timer)
        resolve(child)
      }
    })
    child.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`hub exited early (code ${code}, signal ${signal}):\n${hubLog}`))
    })
  })
}

// stopHub sends SIGTERM and waits: a graceful stop exits 0 (else it rejects).
export function stopHub(child) {
  return new Promise((resolve, reject) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve()
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', (code, signal) => {
      clearTimeout(force)
      if (code === 0) resolve()
      else reject(new Error(`hive serve after SIGTERM: exit code ${code}, signal ${signal}; want exit 0`))
    })
    child.kill('SIGTERM')
  })
}

// closeHub closes each of closers (a close that throws is passed over),
// stops the hub and removes its data directory: a suite's after().
export async function closeHub (hub, dataDir, closers = []) {
  for (const c of closers) {
    try {
      c()
    } catch {}
  }
  await stopHub(hub)
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
}

// hubInfo is the hub's NIP-11 document.
export async function hubInfo (url) {
  const res = await fetch(url.replace('ws://', 'http://'), { headers: { Accept: 'application/nostr+json' } })
  return res.json()
}

// withTimeout rejects with what if p does not settle within ms.
export function withTimeout(p, ms, what) {
  let timer
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)
    }),
  ])
}


// authRelay connects to url and answers its NIP-42 challenge as sk (with
// nostr-tools' relay.auth); it rejects with the hub's refusal.
export async function authRelay (Relay, url, sign) {
  const relay = await Relay.connect(url)
  const deadline = Date.now() + 5_000
  while (!relay.challenge) {
    if (Date.now() > deadline) {
      relay.close()
      throw new Error('no AUTH challenge')
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  try {
    relay.authMessage = String(await withTimeout(relay.auth(sign), 5_000, 'AUTH') ?? '') // a guest's OK carries its reason
  } catch (err) {
    relay.close()
    throw err
  }
  return relay
}
