// The real hub for the Node tests: `hive serve` on a free loopback port
// with a fresh data directory, the hive CLI for the other members' side,
// and member keys admitted by the hub's admin. HIVE_BIN names the binary
// (make test-web-node sets it; default: ../bin/hive from web/).
import { spawn, execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { generateSecretKey, publicKeyOf, encodeNsec, encodeNpub, decodeNsec } from '../../src/keys/index.js'
import { HubConnection } from '../../src/hub/connection.js'
import { localSigner } from '../../src/hub/signer.js'
import { deviceProfileEvent } from '../../src/hub/send.js'
import { schnorr } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '../../src/keys/hex.js'

/** BIN is the hive binary the tests run. */
export const BIN = process.env.HIVE_BIN || fileURLToPath(new URL('../../../bin/hive', import.meta.url))

/** freePort asks the kernel for a free loopback port. */
export function freePort () {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) })
  })
}

/** waitFor polls cond (async ok) every 25 ms until it is truthy or within ms pass; it returns cond's value. */
export async function waitFor (cond, within = 10000, what = 'condition') {
  const end = Date.now() + within
  for (;;) {
    const v = await cond()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out after ${within} ms waiting for ${what}`)
    await new Promise(r => setTimeout(r, 25))
  }
}

/** Hub is a `hive serve` child process and what the tests need around it. */
export class Hub {
  constructor (dir, port, args) {
    this.dir = dir
    this.port = port
    this.args = args
    this.url = `ws://127.0.0.1:${port}`
    this.home = join(dir, 'home') // HIVE_HOME of the CLI
    this.log = ''
    this.conns = []
  }

  /** start starts the hub (again, on the same data) and waits until it serves. */
  async start () {
    this.proc = spawn(BIN, ['serve', '--data', join(this.dir, 'data'), '--addr', `127.0.0.1:${this.port}`, ...this.args], { stdio: ['ignore', 'ignore', 'pipe'] })
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`hive serve did not start:\n${this.log}`)), 20000)
      this.proc.stderr.on('data', b => {
        this.log += b
        if (this.log.includes('hive hub serving')) { clearTimeout(t); resolve() }
      })
      this.proc.once('exit', code => { clearTimeout(t); reject(new Error(`hive serve exited ${code}:\n${this.log}`)) })
    })
    this.proc.removeAllListeners('exit')
    this.adminKey = decodeNsec(readFileSync(join(this.dir, 'data', 'admin.key'), 'utf8'))
    this.adminFile = join(this.dir, 'data', 'admin.key')
    return this
  }

  /** kill9 kills the hub at once (SIGKILL) and waits for it to be gone. */
  async kill9 () {
    const p = this.proc
    if (!p || p.exitCode !== null) return
    await new Promise(resolve => { p.once('exit', resolve); p.kill('SIGKILL') })
  }

  /** cli runs the hive CLI with this hub's HIVE_HOME; it resolves {code, stdout, stderr}. */
  cli (args, { input, env = {} } = {}) {
    return new Promise(resolve => {
      const c = execFile(BIN, args, { env: { ...process.env, HIVE_HOME: this.home, ...env }, timeout: 30000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr })
      })
      if (input !== undefined) c.stdin.end(input)
    })
  }

  /** ok runs the CLI and throws with its stderr unless it exits 0. */
  async ok (args, opts) {
    const r = await this.cli(args, opts)
    if (r.code !== 0) throw new Error(`hive ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`)
    return r.stdout
  }

  /** keyFile writes sk as a key file (mode 0600) and returns its path. */
  keyFile (name, sk) {
    const path = join(this.dir, name + '.key')
    writeFileSync(path, encodeNsec(sk) + '\n', { mode: 0o600 })
    return path
  }

  /** member makes a key, admits it (hive member add as the admin) and names it (hive profile name); {sk, pk, npub, file}. */
  async member (name) {
    const sk = generateSecretKey()
    const m = { name, sk, pk: publicKeyOf(sk), npub: encodeNpub(publicKeyOf(sk)), file: this.keyFile(name, sk) }
    await this.ok(['member', 'add', m.npub, '--hub', this.url, '--key', this.adminFile])
    await this.ok(['profile', 'name', name, '--hub', this.url, '--key', m.file])
    return m
  }

  /** as runs the CLI as member m on this hub. */
  as (m, args, opts) { return this.ok([...args, '--hub', this.url, '--key', m.file], opts) }

  /** connect opens a HubConnection (the code under test) as sk, closed by stop(). */
  async connect (sk, opts = {}) {
    const c = new HubConnection({ url: this.url, signer: localSigner(sk), WebSocket, ...opts })
    this.conns.push(c)
    await c.start()
    return c
  }

  /** stop closes every connection, kills the hub and removes its directory. */
  async stop () {
    for (const c of this.conns) c.close()
    await this.kill9()
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** startHub starts a hub on a fresh data directory. */
export async function startHub (args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'hive-web-'))
  return new Hub(dir, await freePort(), args).start()
}

/**
 * attestDevice signs, as owner (secret key bytes), a NIP-OA device
 * attestation of devicePk as hive pair does (the device clause, valid from
 * a second ago for a day) and returns the auth tag.
 */
export function attestDevice (ownerSk, devicePk, now = Math.floor(Date.now() / 1000)) {
  const conds = `created_at>0&created_at>${now - 1}&created_at<${now + 86400}`
  const h = sha256(new TextEncoder().encode(`nostr:agent-auth:${devicePk}:${conds}`))
  return ['auth', publicKeyOf(ownerSk), conds, bytesToHex(schnorr.sign(h, ownerSk))]
}

/** device makes a paired device of member m on hub: a key, its attestation and its published device profile; {sk, pk, authTag, conn}. */
export async function device (hub, m, name = 'laptop') {
  const sk = generateSecretKey()
  const pk = publicKeyOf(sk)
  const authTag = attestDevice(m.sk, pk)
  const conn = await hub.connect(sk, { authTag })
  await conn.publish(deviceProfileEvent(name, authTag))
  return { sk, pk, authTag, conn }
}

/** generalHub is a hub with members alice and bob in the open channel general (alice created it). */
export async function generalHub () {
  const hub = await startHub()
  const alice = await hub.member('alice')
  const bob = await hub.member('bob')
  await hub.as(alice, ['channel', 'create', 'general'])
  await hub.as(bob, ['channel', 'join', 'general'])
  return { hub, alice, bob }
}

/**
 * stallingProxy forwards a loopback port to the hub until freeze(): then
 * nothing passes either way (a silent link: no FIN, no RST), until thaw()
 * drops the frozen connections and lets new ones through. {url, freeze, thaw, close}
 */
export async function stallingProxy (hub) {
  const { connect } = await import('node:net')
  let frozen = false
  const pairs = new Set()
  const server = createServer(client => {
    const upstream = connect(hub.port, '127.0.0.1')
    const pair = { client, upstream, frozen }
    pairs.add(pair)
    const pass = (from, to) => from.on('data', b => { if (!pair.frozen) to.write(b) })
    pass(client, upstream)
    pass(upstream, client)
    const end = () => { pairs.delete(pair); client.destroy(); upstream.destroy() }
    client.on('close', end)
    upstream.on('close', end)
    client.on('error', end)
    upstream.on('error', end)
  })
  const port = await new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server.address().port)))
  return {
    url: `ws://127.0.0.1:${port}`,
    freeze () { frozen = true; for (const p of pairs) p.frozen = true },
    thaw () {
      frozen = false
      for (const p of [...pairs]) if (p.frozen) { pairs.delete(p); p.client.destroy(); p.upstream.destroy() }
    },
    close () { for (const p of pairs) { p.client.destroy(); p.upstream.destroy() } server.close() }
  }
}
