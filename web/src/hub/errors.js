// The hub's refusals as errors the page shows as one line.

/** HubError is a refusal from the hub (OK false, CLOSED, an AUTH refused, a close frame's reason). */
export class HubError extends Error {
  constructor (reason, { eventId = '', unknownDelivery = false } = {}) {
    super(reason)
    this.name = 'HubError'
    this.reason = reason
    /** prefix is the NIP-01 machine-readable prefix ("restricted", "invalid", ...), or ''. */
    this.prefix = /^[a-z-]+:/.test(reason) ? reason.slice(0, reason.indexOf(':')) : ''
    this.eventId = eventId
    /** unknownDelivery: the event was sent but no OK came; sending it again is safe (same id). */
    this.unknownDelivery = unknownDelivery
  }
}
