// NIP-43 invites as a person pastes them (spec/auth.md, "Invites (NIP-43)"):
// a link whose query carries the hub in r and the claim in c (hive invite's,
// or flotilla's, whose r has no scheme), or the bare claim. The Go side is
// client/invite.go (ParseInvite); spec/fixtures/invites.json holds both.
import { KIND } from '../model/kinds.js'

/** parseInvite returns {hub, claim} (hub '' for a bare claim) or throws with the reason. */
export function parseInvite (text) {
  const s = String(text || '').trim()
  if (!s.includes('://')) {
    if (!s || /[\s/?&=]/.test(s)) throw new Error(`${JSON.stringify(s)} is neither an invite link nor an invite claim`)
    return { hub: '', claim: s }
  }
  let u
  try { u = new URL(s) } catch (e) { throw new Error(`invite link: ${e.message}`) }
  const claim = u.searchParams.get('c') || ''
  let hub = u.searchParams.get('r') || ''
  if (!claim) throw new Error(`invite link ${JSON.stringify(s)} carries no claim (its c parameter)`)
  if (hub && !hub.includes('://')) hub = 'wss://' + hub // flotilla's links name the relay without its scheme
  return { hub, claim }
}

/** joinRequest is the NIP-43 join request (kind 28934) template carrying claim. */
export function joinRequest (claim) {
  return { kind: KIND.RelayJoin, created_at: Math.floor(Date.now() / 1000), tags: [['-'], ['claim', claim]], content: '' }
}
