// The owner's live view of an agent, built from decrypted observer frames
// (kind 24200; spec/agents.md, "Observer frames"): a port of
// client/observer's Transcript, a pure reducer with no I/O and no clock.
// Frames may arrive out of order: a late frame fills its gap, and a tool's
// status never moves backwards.

const LOAD_PREFIX = 'load:'
/** DIR_BRIDGE is the dir of a frame that carries the bridge's own note (client/observer DirBridge): {ended} ends its turn. */
const DIR_BRIDGE = 'bridge'
const MAX_TRACKED_GAP = 4096

function statusRank (s) {
  switch (s) {
    case 'pending': return 1
    case 'in_progress': return 2
    case 'completed': case 'failed': return 3
  }
  return 0
}

function sameID (a, b) { return a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b) }

function str (v) { return typeof v === 'string' ? v : '' }

function tool (t, id) { return t.tools.find(tv => tv.id === id) }

// upsertTool records a tool call; updates may arrive before the call itself.
function upsertTool (t, f) {
  let tv = tool(t, str(f.toolCallId))
  if (!tv) { tv = { id: str(f.toolCallId), title: '', kind: '', status: '' }; t.tools.push(tv) }
  if (str(f.title)) tv.title = f.title
  if (str(f.kind)) tv.kind = f.kind
  if (statusRank(str(f.status)) > statusRank(tv.status)) tv.status = f.status
  if (!tv.title) tv.title = tv.id
  return tv
}

/**
 * Transcript folds frames ({v, seq, channel, session, turn, dir, msg}) into
 * turns: {channel, session, turn, replay, prompt, text, thoughts, tools
 * [{id, title, kind, status}], plan [{content, status}], permissions
 * [{request, session, toolCall, title, options [{id, name, kind}], answer}], stop}.
 */
export class Transcript {
  constructor () {
    this.turns = []
    this.history = [] // session/load replays (turn "load:<session>"), never a turn
    this.gaps = 0
    this.lastSeq = 0
    this.missing = new Set()
    this.byTurn = new Map()
  }

  /** apply folds one frame in and returns what changed: [{kind, turn, text}]. */
  apply (f) {
    const evs = []
    const seq = Number(f.seq) || 0
    if (this.lastSeq !== 0 && seq > this.lastSeq + 1) {
      this.gaps += seq - this.lastSeq - 1
      for (let s = this.lastSeq + 1; s < seq && this.missing.size < MAX_TRACKED_GAP; s++) this.missing.add(s)
    } else if (seq < this.lastSeq && this.missing.has(seq)) {
      this.missing.delete(seq)
      this.gaps--
    }
    if (seq > this.lastSeq) this.lastSeq = seq
    const turnID = str(f.turn)
    let t = this.byTurn.get(turnID)
    if (!t && f.dir === DIR_BRIDGE) return evs // a note on a turn this watcher never saw: nothing to end
    if (!t) {
      t = { channel: str(f.channel), session: str(f.session), turn: turnID, replay: turnID.startsWith(LOAD_PREFIX), prompt: '', text: '', thoughts: '', tools: [], plan: [], permissions: [], stop: '' }
      this.byTurn.set(turnID, t)
      if (t.replay) this.history.push(t)
      else this.turns.push(t)
    }
    if (str(f.session)) t.session = f.session
    const m = f.msg
    if (!m || typeof m !== 'object') return evs
    const ev = (kind, text) => evs.push({ kind, turn: t, text })
    const method = str(m.method)
    const params = m.params && typeof m.params === 'object' ? m.params : {}
    if (f.dir === DIR_BRIDGE) {
      const ended = str(m.ended)
      if (ended && !t.stop) { t.stop = ended; ev('stop', ended) }
    } else if (f.dir === 'out' && method === 'session/prompt') {
      for (const b of Array.isArray(params.prompt) ? params.prompt : []) t.prompt += str(b && b.text)
      t.stop = '' // a turn prompted again (after a crash, or by the next bridge run) is in flight again
      ev('prompt', t.prompt)
    } else if (f.dir === 'in' && method === 'session/update') {
      this.update(t, params, ev)
    } else if (f.dir === 'in' && method === 'session/request_permission') {
      const tc = params.toolCall && typeof params.toolCall === 'object' ? params.toolCall : {}
      if (this.knownRequest(t, f.resent === true, str(params.sessionId), m.id)) return evs // already shown
      const pv = {
        request: m.id,
        session: str(params.sessionId),
        toolCall: str(tc.toolCallId),
        title: str(tc.title),
        options: (Array.isArray(params.options) ? params.options : []).map(o => ({ id: str(o.optionId), name: str(o.name), kind: str(o.kind) })),
        answer: ''
      }
      if (!pv.title) { const tv = tool(t, pv.toolCall); if (tv) pv.title = tv.title }
      upsertTool(t, tc)
      t.permissions.push(pv)
      ev('permission', pv.title)
    } else if (f.dir === 'out' && !method && m.id !== undefined && m.id !== null) {
      const oc = m.result && m.result.outcome
      if (!oc || !str(oc.outcome)) return evs
      for (const pv of t.permissions) {
        if (pv.answer === '' && sameID(pv.request, m.id)) {
          pv.answer = oc.outcome === 'cancelled' ? 'cancelled' : str(oc.optionId)
          ev('answered', pv.answer)
        }
      }
    } else if (f.dir === 'in' && !method && m.result !== undefined && m.result !== null) {
      const stop = str(m.result.stopReason)
      if (stop) { t.stop = stop; ev('stop', stop) }
    }
    return evs
  }

  update (t, params, ev) {
    const u = params.update && typeof params.update === 'object' ? params.update : {}
    const text = str(u.content && u.content.text)
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
        t.text += text
        ev(t.replay ? 'history' : 'text', text)
        break
      case 'user_message_chunk': // only a replay sends the user's side
        if (t.replay) { t.prompt += text; ev('history', text) }
        break
      case 'agent_thought_chunk':
        t.thoughts += text
        ev('thought', text)
        break
      case 'tool_call': case 'tool_call_update': {
        const tv = upsertTool(t, u)
        ev('tool', `${tv.title} [${tv.status}]`)
        break
      }
      case 'plan':
        t.plan = (Array.isArray(u.entries) ? u.entries : []).map(e => ({ content: str(e.content), status: str(e.status) }))
        ev('plan', `${t.plan.length} entries`)
        break
    }
  }

  /**
   * knownRequest says whether a permission request frame for turn t shows a
   * request already here: one sent again for a late watcher (resent) whose
   * session and JSON-RPC id are known, or the same request of the same
   * turn still waiting. JSON-RPC ids start again with each agent process
   * while a session outlives it, so a new request with the id of an
   * answered one is new, and one with the id of a request still waiting in
   * another turn shows that process gone: that request is marked cancelled
   * (client/observer's knownRequest).
   */
  knownRequest (t, resent, session, id) {
    let last, lastTurn
    for (const tv of this.turns) for (const pv of tv.permissions) if (pv.session === session && sameID(pv.request, id)) { last = pv; lastTurn = tv }
    if (!last) return false
    if (resent) return true
    if (last.answer !== '' || lastTurn.stop !== '') return false
    if (lastTurn === t) return true
    last.answer = 'cancelled'
    return false
  }

  /** pending lists the permission requests still waiting for an answer. */
  pending () {
    const out = []
    for (const t of this.turns) for (const pv of t.permissions) if (pv.answer === '' && t.stop === '') out.push(pv)
    return out
  }

  /** inFlight lists the turns seen that have not finished (what makes an agent working to its owner). */
  inFlight () { return this.turns.filter(t => t.stop === '' && !t.replay) }
}
