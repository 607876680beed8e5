// The member's presence (kind 20001, spec/chat.md): "online" when the
// connection is up and every 4 minutes after (a presence older than 10
// minutes reads as offline), "offline" when the page signs out.

/** RENEW is how often (ms) presence is sent again while connected. */
export const RENEW = 4 * 60 * 1000;

const presenceEvent = (status) => ({ kind: 20001, content: status, tags: [] });

/** Presence keeps hub's member shown online while the page runs. */
export class Presence {
  constructor(hub) {
    this.hub = hub;
    // a refused presence changes nothing the person sees
    this.send = () => Promise.resolve().then(() => hub.publish(presenceEvent('online'))).catch(() => {});
    this.off = hub.on('state', (s) => s.state === 'connected' && this.send());
    if (hub.state === 'connected') this.send();
    this.timer = setInterval(() => hub.state === 'connected' && this.send(), RENEW);
  }

  /** stop ends the renewals and says offline when still connected. */
  stop() {
    clearInterval(this.timer);
    this.off?.();
    if (this.hub.state === 'connected') Promise.resolve().then(() => this.hub.publish(presenceEvent('offline'))).catch(() => {});
  }
}
