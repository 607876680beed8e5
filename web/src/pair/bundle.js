// hive's custom pairing payload (spec/pairing.md, "A per-device key";
// pairing/bundle.go): {"app":"hive","hubs":[...],"pin":"...","owner":"<hex>",
// "device":"<hex>","auth":[NIP-OA device attestation]}.
import { parseConditions, timeHolds, verifyAuthTag } from '../keys/nipoa.js'
import { checkRelayURL } from './uri.js'

function bad (why) { return new Error('invalid hive pairing payload: ' + why) }

/**
 * parseBundle reads a custom payload and checks it is hive's, for devicePub,
 * with an attestation by its owner that verifies for devicePub, holds the
 * device clause and is valid at now (unix s), and ws/wss hub URLs. It
 * returns {hubs, pin, owner, device, auth, expiresAt}; it throws naming what is wrong.
 */
export function parseBundle (payload, devicePub, now = Math.floor(Date.now() / 1000)) {
  let b
  try { b = JSON.parse(payload) } catch (e) { throw bad(e.message) }
  if (!b || typeof b !== 'object') throw bad('not a JSON object')
  if (b.app !== 'hive') throw bad(`app ${JSON.stringify(b.app)}, want "hive"`)
  if (b.device !== devicePub) throw bad(`it attests ${b.device}, not this device's key ${devicePub}`)
  let a
  try { a = verifyAuthTag(b.auth, devicePub) } catch (e) { throw bad(e.message) }
  if (!a.device) throw bad('the attestation is not a device attestation (no created_at>0 clause): pair with a newer hive')
  if (a.owner !== b.owner) throw bad(`the attestation is by ${a.owner}, the payload names owner ${b.owner}`)
  const conds = parseConditions(a.raw)
  if (!timeHolds(conds, now)) throw bad(`attestation not valid now (conditions ${a.raw})`)
  if (!Array.isArray(b.hubs) || !b.hubs.length) throw bad('no hub URL')
  for (const h of b.hubs) {
    try { checkRelayURL(h) } catch (e) { throw bad('hub ' + e.message) }
  }
  return { hubs: b.hubs, pin: typeof b.pin === 'string' ? b.pin : '', owner: b.owner, device: b.device, auth: b.auth, expiresAt: conds.before }
}
