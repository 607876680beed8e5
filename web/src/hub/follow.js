// The live feed of a chat surface (as hive chat follows, client/session/feed.go):
// rows, overlays and typing of the member's channels, profiles, presence,
// channel changes, deletions and the member's read state, applied to the
// model as they come; names of new keys and messages quoted that are not
// loaded are fetched.
import { KIND, OVERLAY_KINDS, TIMELINE_KINDS } from '../model/kinds.js'
import { keysShown, loadNames, loadQuoted } from './history.js'
import { parseReadState } from './readstate.js'

/**
 * feedFilters are the live feed's filters over channelIds from since, as
 * client/session.FeedFilters asks (spec/fixtures/session/feed.json):
 * profiles, presence and channel changes; the read positions of all of the
 * member's keys; deletions and reactions (neither needs an h tag); the
 * channels' rows, overlays and typing.
 */
export function feedFilters (channelIds, since) {
  const filters = [
    { kinds: [KIND.Profile, KIND.Presence, KIND.GroupMetadata, KIND.GroupMembers, KIND.DeleteGroup], since },
    { kinds: [KIND.ReadState], since },
    { kinds: [KIND.Deletion, KIND.Reaction], since }
  ]
  if (channelIds.length) filters.push({ kinds: [...TIMELINE_KINDS, ...OVERLAY_KINDS, KIND.Typing], '#h': channelIds, since })
  return filters
}

/**
 * follow subscribes for channelIds from since (unix s; default now - 5)
 * and applies each event to model. Handlers: onevent(ev, changes) for
 * every event, onreadstate(context, at) for a read position of the
 * member's keys, onchannels(ev) for a channel's metadata or roster,
 * onnames(pks) when profiles of new keys arrived, oneose() after the
 * stored events since then, onclosed(reason).
 * It returns the subscription ({close()}).
 */
export function follow (hub, model, channelIds, { since, onevent = () => {}, onreadstate = () => {}, onchannels = () => {}, onnames = () => {}, oneose = () => {}, onclosed = () => {} } = {}) {
  const filters = feedFilters(channelIds, since ?? Math.floor(Date.now() / 1000) - 5)
  const asking = new Set()
  return hub.subscribe(filters, {
    onclosed,
    oneose,
    onevent: ev => {
      if (ev.kind === KIND.ReadState) {
        const r = parseReadState(ev)
        if (r) onreadstate(r.context, r.at)
        return
      }
      if (ev.kind === KIND.GroupMetadata || ev.kind === KIND.GroupMembers || ev.kind === KIND.DeleteGroup) { onchannels(ev); return }
      const changes = model.apply(ev)
      onevent(ev, changes)
      if (ev.kind !== KIND.Profile && !model.names.known(ev.pubkey) && !asking.has(ev.pubkey)) {
        asking.add(ev.pubkey)
        loadNames(hub, model, [ev.pubkey]).then(() => onnames([ev.pubkey]), () => asking.delete(ev.pubkey))
      }
      const quoted = model.missingQuotes([ev], 1)[0]
      if (quoted && !asking.has(quoted)) { // a live quote of a message not loaded: fetch it, then show it as names arriving do
        asking.add(quoted)
        loadQuoted(hub, model, [ev])
          .then(got => loadNames(hub, model, keysShown(got)).then(() => onnames(keysShown(got))))
          .catch(() => asking.delete(quoted))
      }
    }
  })
}
