// What the web chat writes, with the tags client/ signs (client/events.go);
// the connection adds created_at and the ms tag (./stamp.js). A target is
// a model row ({id, channel, author, root}) or a hub event.
import { KIND, channelOf, threadRoot } from '../model/kinds.js'

function ref (target) {
  if (target.pubkey !== undefined) return { id: target.id, channel: channelOf(target), author: target.pubkey, root: threadRoot(target) }
  return { id: target.id, channel: target.channel, author: target.author, root: target.root || target.id }
}

const mention = pk => ['p', pk, '', 'mention']

/** messageEvent is a top-level message (kind 9) in channel mentioning the hex keys given. */
export function messageEvent (channel, text, mentions = []) {
  return { kind: KIND.Message, content: text, tags: [['h', channel], ...mentions.map(mention)] }
}

/** replyEvent answers parent in its channel (NIP-10 root/reply markers; the parent's author p-tagged as reply). */
export function replyEvent (parent, text, mentions = []) {
  const p = ref(parent)
  const tags = [['h', p.channel], ['e', p.root, '', 'root']]
  if (p.root !== p.id) tags.push(['e', p.id, '', 'reply'])
  tags.push(['p', p.author, '', 'reply'])
  for (const pk of mentions) if (pk !== p.author) tags.push(mention(pk))
  return { kind: KIND.Message, content: text, tags }
}

/** reactionEvent reacts to target with an emoji ('+' by default). */
export function reactionEvent (target, emoji = '+') {
  const t = ref(target)
  const tags = [['p', t.author], ['e', t.id]]
  if (t.channel) tags.unshift(['h', t.channel])
  return { kind: KIND.Reaction, content: emoji, tags }
}

/** editEvent replaces the text of target (the hub checks who may). */
export function editEvent (target, text) {
  const t = ref(target)
  return { kind: KIND.Edit, content: text, tags: [['h', t.channel], ['e', t.id]] }
}

/** deleteEvent removes target from its channel's timeline (kind 9005). */
export function deleteEvent (target, reason = '') {
  const t = ref(target)
  return { kind: KIND.DeleteInChannel, content: reason, tags: [['h', t.channel], ['e', t.id]] }
}

/** retractEvent is a NIP-09 deletion of the signer's own events (a reaction). */
export function retractEvent (...ids) { return { kind: KIND.Deletion, content: '', tags: ids.map(id => ['e', id]) } }

/** typingEvent says the member is typing in channel (content 'stop' ends it). */
export function typingEvent (channel, stop = false) { return { kind: KIND.Typing, content: stop ? 'stop' : '', tags: [['h', channel]] } }

/** joinEvent joins an open channel. */
export function joinEvent (channel) { return { kind: KIND.JoinRequest, content: '', tags: [['h', channel]] } }

/** leaveEvent leaves a channel. */
export function leaveEvent (channel) { return { kind: KIND.LeaveRequest, content: '', tags: [['h', channel]] } }

/** addMemberEvent adds pk (hex) to a channel as a member (owners and admins may). */
export function addMemberEvent (channel, pk) { return { kind: KIND.AddUser, content: '', tags: [['h', channel], ['p', pk]] } }

/**
 * channelIDFor is the id hive channel create gives a name (client.ChannelIDFor):
 * lower case, spaces as '-', other characters than a-z 0-9 _ . - left out, at most 64.
 */
export function channelIDFor (name) {
  return name.replace(/[A-Z]/g, c => c.toLowerCase()).replace(/ /g, '-').replace(/[^a-z0-9_.-]/g, '').slice(0, 64)
}

/** channelCreateEvent creates the stream channel id named name, 'open' or 'private'; the creator becomes its owner. */
export function channelCreateEvent (id, name, about = '', visibility = 'open') {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new Error(`channel id ${JSON.stringify(id)}: use 1-64 of A-Z a-z 0-9 _ . - (name it with some letters or digits)`)
  const tags = [['h', id], ['name', name], ['visibility', visibility]]
  if (about) tags.push(['about', about])
  return { kind: KIND.CreateGroup, content: '', tags }
}

/** dmChannelID is the DM channel id of two keys, the same whoever creates it. */
export function dmChannelID (a, b) {
  if (a > b) [a, b] = [b, a]
  return 'dm-' + a.slice(0, 16) + '-' + b.slice(0, 16)
}

/** dmCreateEvent creates the private DM channel id with the given keys. */
export function dmCreateEvent (id, ...participants) {
  return { kind: KIND.CreateGroup, content: '', tags: [['h', id], ['type', 'dm'], ['visibility', 'private'], ...participants.map(p => ['p', p])] }
}

/** profileEvent is a kind 0 naming the key (name and display_name), with extra tags (a device's attestation). */
export function profileEvent (name, tags = []) {
  return { kind: KIND.Profile, content: JSON.stringify({ name, display_name: name }), tags }
}

/** deviceProfileEvent is a paired device's kind 0: its owner's device attestation and the ["device"] label (as hive join publishes). */
export function deviceProfileEvent (name, authTag) {
  return { kind: KIND.Profile, content: JSON.stringify({ name, about: 'hive device' }), tags: [authTag, ['device']] }
}

/**
 * mentionsIn finds the @name words of text that name exactly one key in
 * names and returns those keys (each once, in order). A name several keys
 * have throws an Error listing them; a name nobody has stays text.
 */
export function mentionsIn (names, text) {
  const out = []
  for (const w of text.split(/\s+/)) {
    if (!w.startsWith('@') || w.length < 2) continue
    const name = w.slice(1).replace(/[.,;:!?)]+$/, '')
    const found = names.lookup(name)
    if (found.length > 1) throw new Error(`${found.length} keys are named "${name}": give one of them (${found.map(pk => names.name(pk)).join('; ')})`)
    if (found.length === 1 && !out.includes(found[0])) out.push(found[0])
  }
  return out
}

/** ownReaction is the id of the member's own visible reaction with emoji on row id in model, or ''. */
export function ownReaction (model, id, emoji) {
  for (const o of model.byTarget.get(id) || []) {
    if (o.kind === KIND.Reaction && o.text === emoji && !model.gone.has(o.id) && model.own(o.author)) return o.id
  }
  return ''
}

// Publishing helpers: each resolves with the signed event the hub stored.
export const sendMessage = (hub, channel, text, mentions) => hub.publish(messageEvent(channel, text, mentions))
export const sendReply = (hub, parent, text, mentions) => hub.publish(replyEvent(parent, text, mentions))
export const react = (hub, target, emoji) => hub.publish(reactionEvent(target, emoji))
export const editMessage = (hub, target, text) => hub.publish(editEvent(target, text))
export const deleteMessage = (hub, target, reason) => hub.publish(deleteEvent(target, reason))
export const unreact = (hub, reactionId) => hub.publish(retractEvent(reactionId))
export const joinChannel = (hub, channel) => hub.publish(joinEvent(channel))
export const leaveChannel = (hub, channel) => hub.publish(leaveEvent(channel))
export const addMember = (hub, channel, pk) => hub.publish(addMemberEvent(channel, pk))
export const sendTyping = (hub, channel, stop) => hub.publish(typingEvent(channel, stop))
