// An agent's observer frames for its owner and the owner's paired devices
// (kind 24200, NIP-44; spec/agents.md): the live transcript, the working
// signal, and control frames that answer permission requests, cancel and
// steer. A device watches by lease: the watch control frame, renewed.
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
  const watch = () => control({ v: 1, type: 'watch' }).catch(onerror)
  watch()
  const timer = setInterval(watch, renew)
  return {
    transcript,
    control,
    /** answer answers a permission request (a transcript permission view) with one of its option ids. */
    answer: (pv, optionId) => control({ v: 1, type: 'permission', session: pv.session, request: pv.request, option: optionId }),
    cancel: session => control({ v: 1, type: 'cancel', session }),
    steer: (session, text) => control({ v: 1, type: 'steer', session, text }),
    close () { closed = true; clearInterval(timer); sub.close() }
  }
}
