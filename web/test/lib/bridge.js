// A real `hive bridge` running the scripted ACP agent (test/acpagent) for
// alice, for the observer tests. HIVE_ACPAGENT names a built agent; without
// it the agent is built with go build into the hub's directory.
import { spawn, execFile } from 'node:child_process'
import { writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BIN } from './hub.js'
import { generateSecretKey, publicKeyOf, encodeNpub } from '../../src/keys/index.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))

function acpagent (dir) {
  if (process.env.HIVE_ACPAGENT) return Promise.resolve(process.env.HIVE_ACPAGENT)
  const out = join(dir, 'acpagent')
  return new Promise((resolve, reject) => execFile('go', ['build', '-o', out, './test/acpagent'], { cwd: repo, timeout: 300000 }, (err, _o, stderr) => {
    if (err) reject(new Error(`go build ./test/acpagent: ${err.message}\n${stderr}`))
    else resolve(out)
  }))
}

/**
 * startBridge attests a new agent key for owner (hive agent attest), adds
 * it to channel (hive channel add, as owner) and runs hive bridge with the
 * scripted agent named helper; it resolves {agent, npub, proc, log(), stop()}.
 */
export async function startBridge (hub, owner, channel, agentLines = []) {
  const dir = join(hub.dir, 'bridge')
  mkdirSync(dir, { recursive: true })
  const sk = generateSecretKey()
  const agent = publicKeyOf(sk)
  hub.keyFile(join('bridge', 'agent'), sk)
  writeFileSync(join(dir, 'agent.tag'), await hub.ok(['agent', 'attest', '--key', owner.file, '--agent', agent, '--expires', '1d']), { mode: 0o600 })
  await hub.as(owner, ['channel', 'add', channel, encodeNpub(agent)])
  const cmd = JSON.stringify([await acpagent(hub.dir)])
  const env = `env = { ACPAGENT_DIR = ${JSON.stringify(join(dir, 'sessions'))}, ACPAGENT_STEERING = "1" }`
  writeFileSync(join(dir, 'bridge.toml'), `hub = ${JSON.stringify(hub.url)}\nstate_dir = "state"\n\n[[agent]]\nname = "helper"\nkey = "agent.key"\nattestation = "agent.tag"\ncommand = ${cmd}\ncwd = "."\n${env}\n${agentLines.join('\n')}\n`, { mode: 0o600 })
  const childEnv = { ...process.env, HIVE_HOME: hub.home }
  delete childEnv.IS_SANDBOX // it breaks claude-agent-acp's session/new; the bridge tests clear it
  const proc = spawn(BIN, ['bridge', '--config', join(dir, 'bridge.toml'), '-v'], { cwd: dir, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`hive bridge did not start:\n${log}`)), 60000)
    proc.stderr.on('data', b => {
      log += b
      if (log.includes('member of channel')) { clearTimeout(t); resolve() }
    })
    proc.once('exit', code => { clearTimeout(t); reject(new Error(`hive bridge exited ${code}:\n${log}`)) })
  })
  proc.removeAllListeners('exit')
  await new Promise(r => setTimeout(r, 300)) // the mention subscription follows the roster's EOSE
  return {
    agent,
    npub: encodeNpub(agent),
    proc,
    log: () => log,
    stop: () => new Promise(resolve => {
      if (proc.exitCode !== null) { resolve(); return }
      const t = setTimeout(() => proc.kill('SIGKILL'), 20000)
      proc.once('exit', () => { clearTimeout(t); resolve() })
      proc.kill('SIGTERM')
    })
  }
}
