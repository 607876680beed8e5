// The kinds the web chat gives meaning to (kinds/kinds.go is the source of
// truth; spec/kinds.md is its table), and the NIP-10 thread reading the hub uses.

/** KIND names hive's event kinds. */
export const KIND = Object.freeze({
  Profile: 0,
  Deletion: 5,
  Reaction: 7,
  Message: 9,
  AddUser: 9000,
  RemoveUser: 9001,
  EditMetadata: 9002,
  DeleteInChannel: 9005,
  CreateGroup: 9007,
  DeleteGroup: 9008,
  JoinRequest: 9021,
  LeaveRequest: 9022,
  HubMemberAdd: 8000,
  HubMemberRemove: 8001,
  HubMemberList: 13534,
  Presence: 20001,
  Typing: 20002,
  Auth: 22242,
  RelayJoin: 28934,
  RelayInvite: 28935,
  PairingMessage: 24134,
  ObserverFrame: 24200,
  ReadState: 30078,
  AgentRevocation: 30450,
  GroupMetadata: 39000,
  GroupAdmins: 39001,
  GroupMembers: 39002,
  Edit: 40003,
  Receipt: 40010,
  WorkflowDef: 30460,
  RunRecord: 40461,
  AgentStatus: 10451,
  SystemRow: 40099
})

/** RECEIPT_STATUSES are the status values of an agent receipt (spec/agents.md, "Receipts"). */
export const RECEIPT_STATUSES = Object.freeze(['queued', 'working', 'answered', 'failed', 'not-answered'])

/** RUN_STATUSES are the status values of a workflow run record (spec/workflows.md, "Runs are events"). */
export const RUN_STATUSES = Object.freeze(['started', 'step', 'waiting', 'finished', 'failed', 'cancelled', 'skipped', 'approved', 'denied', 'ignored'])

/** CONTENT_KINDS are the content partition: timeline rows that count as unread. */
export const CONTENT_KINDS = Object.freeze([KIND.Message])

/** OVERLAY_KINDS are the aux-overlay partition: they modify a row and are fetched by #e. */
export const OVERLAY_KINDS = Object.freeze([KIND.Deletion, KIND.Reaction, KIND.DeleteInChannel, KIND.Edit, KIND.Receipt, KIND.RunRecord])

/** TIMELINE_KINDS are the kinds of timeline rows: content kinds and system rows. */
export const TIMELINE_KINDS = Object.freeze([...CONTENT_KINDS, KIND.SystemRow])

/** READ_STATE_PREFIX starts the d tag of a read position (kind 30078). */
export const READ_STATE_PREFIX = 'read-state:'

/** isContentKind reports whether kind n is in the content partition. */
export function isContentKind (n) { return CONTENT_KINDS.includes(n) }

/** isOverlayKind reports whether kind n is in the aux-overlay partition. */
export function isOverlayKind (n) { return OVERLAY_KINDS.includes(n) }

/** CHANNEL_CHANGE_KINDS are the channel changes the hub reports as system rows (kinds.Timed's third part). */
const CHANNEL_CHANGE_KINDS = [KIND.AddUser, KIND.RemoveUser, KIND.EditMetadata, KIND.CreateGroup, KIND.DeleteGroup, KIND.JoinRequest, KIND.LeaveRequest]

/** isTimedKind reports whether events of kind n carry the ms tag (as kinds.Timed): rows, overlays and channel changes. */
export function isTimedKind (n) { return isContentKind(n) || isOverlayKind(n) || CHANNEL_CHANGE_KINDS.includes(n) }

/** isRowKind reports whether events of kind n are timeline rows. */
export function isRowKind (n) { return n === KIND.SystemRow || isContentKind(n) }

/** tagValue is the second element of ev's first tag named name, or ''. */
export function tagValue (ev, name) {
  const t = (ev.tags || []).find(t => t.length >= 2 && t[0] === name)
  return t ? t[1] : ''
}

/** lastTagValue is the second element of ev's last tag named name, or ''. */
export function lastTagValue (ev, name) {
  const tags = ev.tags || []
  for (let i = tags.length - 1; i >= 0; i--) if (tags[i].length >= 2 && tags[i][0] === name) return tags[i][1]
  return ''
}

/** channelOf is an event's channel: its first h tag, or ''. */
export function channelOf (ev) { return tagValue(ev, 'h') }

/**
 * threadRoot is the root of the thread a message belongs to: its
 * root-marked e tag, else its reply-marked one, else the message itself.
 */
export function threadRoot (ev) {
  let root = ev.id
  for (const t of ev.tags || []) {
    if (t.length >= 4 && t[0] === 'e') {
      if (t[3] === 'root') return t[1]
      if (t[3] === 'reply') root = t[1]
    }
  }
  return root
}

/** replyTo is the message ev answers: its reply-marked e tag, else its root-marked one; '' for top level. */
export function replyTo (ev) {
  let root = ''
  for (const t of ev.tags || []) {
    if (t.length >= 4 && t[0] === 'e') {
      if (t[3] === 'reply') return t[1]
      if (t[3] === 'root') root = t[1]
    }
  }
  return root
}

/** threadContext is the read context of the thread rooted at root. */
export function threadContext (root) { return 'thread:' + root }

/** MS_TAG names the tag holding the milliseconds of an event's created_at second. */
export const MS_TAG = 'ms'

/**
 * millis is an event's time in milliseconds: created_at × 1000 plus its
 * ms tag when that is a whole number 0-999 spelled without sign or leading zero.
 */
export function millis (ev) {
  const t = ev.created_at * 1000
  for (const tg of ev.tags || []) {
    if (tg.length >= 2 && tg[0] === MS_TAG && tg[1].length <= 3) { // as client/chat reads it: the first short one counts
      if (/^(0|[1-9][0-9]{0,2})$/.test(tg[1])) return t + Number(tg[1])
      break
    }
  }
  return t
}
