// An agent's observer frames for its owner and the owner's paired devices
// (kind 24200, NIP-44; spec/agents.md): the live transcript, the working
// signal, and control frames that answer permission requests, cancel and
// steer. A device watches by lease: the watch control frame, renewed, and
// sent again when the bridge (re)connects.
import { KIND } from '../model/kinds.js'
import { Transcript } from '../model/transcript.js'

/** WATCH_RENEW is how often the watch control frame is sent again (ms). */
export const WATCH_RENEW = 2 * 60 * 1000

/**
 * watchAgent follows agent's frames to this connection's key. Handlers:
 * onframe(frame), onchange(events, transcript) after each frame, onerror(e)
 * for a control frame the hub refused. With a model, the agent's turns in
 * flight feed model.live's working signal. It returns {transcript,
 * answer(permission, optionId), cancel(session), steer(session, text),
 * control(obj), close()}.
 */
export function watchAgent (hub, agent, { model, onframe = () => {}, onchange = () => {}, onerror = () => {}, renew = WATCH_RENEW } = {}) {
  const transcript = new Transcript()
  let chain = Promise.resolve()
  let closed = false
  const sub = hub.subscribe([{ kinds: [KIND.ObserverFrame], authors: [agent], '#p': [hub.pubkey] }], {
    onevent: ev => {
      chain = chain.then(async () => { // frames are opened in the order they came
        let frame
        try { frame = JSON.parse(await hub.signer.nip44Decrypt(agent, ev.content)) } catch { return } // not for this key
        if (closed || !frame || typeof frame !== 'object') return
        const evs = transcript.apply(frame)
        if (model) {
          const t = transcript.byTurn.get(String(frame.turn || ''))
          if (t && !t.replay) {
            if (t.stop) model.live.turnEnded(agent, t.turn)
            else model.live.turnStarted(agent, t.channel, t.turn, Date.now()) // a known turn keeps its start
          }
        }
        onframe(frame)
        onchange(evs, transcript)
      })
    }
  })
  const control = async c => {
    const content = await hub.signer.nip44Encrypt(agent, JSON.stringify(c))
    return hub.publish({ kind: KIND.ObserverFrame, content, tags: [['p', agent]] })
  }
  // The watch: now, every renew ms, and whenever the agent's status shows a
  // new connection of its bridge to the hub (a bridge that started,
  // restarted or reconnected after this watch began), so that a device gets
  // the frames from the moment the bridge is up (spec/agents.md, client.KeepWatch).
  let timer = null
  const watch = () => {
    clearTimeout(timer)
    timer = setTimeout(watch, renew)
    return control({ v: 1, type: 'watch' }).catch(onerror)
  }
  // The status stored when the REQ went out (before the first watch) is a
  // bridge that watch reaches; a later one with a new connection is not.
  const run = { conn: 0, offline: false }
  let baseline = true
  const status = hub.subscribe([{ kinds: [KIND.AgentStatus], authors: [agent] }], {
    onevent: ev => { if (bridgeUp(run, ev) && !baseline && !closed) watch() },
    oneose: () => { baseline = false }
  })
  watch()
  return {
    transcript,
    control,
    /** answer answers a permission request (a transcript permission view) with one of its option ids. */
    answer: (pv, optionId) => control({ v: 1, type: 'permission', session: pv.session, request: pv.request, option: optionId }),
    cancel: session => control({ v: 1, type: 'cancel', session }),
    steer: (session, text) => control({ v: 1, type: 'steer', session, text }),
    close () { closed = true; clearTimeout(timer); sub.close(); status.close() }
  }
}

/**
 * bridgeUp takes an agent's newest status event into run ({conn, offline})
 * and says whether it shows a bridge connection not watched yet: a new
 * conn, or a bridge back from offline (one that does not say conn).
 */
export function bridgeUp (run, ev) {
  let s
  try { s = JSON.parse(ev.content) } catch { return false }
  if (!s || typeof s !== 'object') return false
  const conn = Number(s.conn) || 0
  const offline = s.state === 'offline'
  const fresh = !offline && (conn !== run.conn || run.offline)
  run.conn = conn
  run.offline = offline
  return fresh
}
