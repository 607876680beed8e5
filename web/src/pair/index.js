// NIP-AB v1 pairing, the joining side (this browser is the new device).
export { joinPairing } from './join.js'
export { parsePairURI, encodePairURI, checkRelayURL } from './uri.js'
export { parseBundle } from './bundle.js'
export { TargetSession, PairingError, Ignored, PAIRING_KIND, DEFAULT_TIMEOUT } from './session.js'
export { sessionID, ecdh, sasInput, sasCode, transcriptHash } from './crypto.js'
