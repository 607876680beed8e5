// The connection state in the top bar and the one line that shows the
// hub's latest refusal (or any failure) until it is dismissed.
import { h, replace } from './dom.js';

const words = {
  connecting: 'connecting…',
  authenticating: 'authenticating…',
  connected: 'connected',
  reconnecting: 'reconnecting…',
  refused: 'refused',
  closed: 'disconnected',
  'signed-out': 'not signed in',
};

/** connectionNode makes the state element (data-testid connection-state). */
export function connectionNode() {
  return h('span', { class: 'conn', 'data-testid': 'connection-state', 'data-state': 'signed-out', role: 'status', 'aria-live': 'polite' }, words['signed-out']);
}

/** showConnection sets el to conn ({state, reason?, retryAt?}). */
export function showConnection(el, conn) {
  const st = conn?.state || 'closed';
  if (el.dataset.state === st && el.title === (conn.reason || '')) return;
  el.dataset.state = st;
  el.title = conn.reason || '';
  let text = words[st] || st;
  if (st === 'reconnecting' && conn.retryAt) text += ` (retry in ${Math.max(0, Math.round((conn.retryAt - Date.now()) / 1000))}s)`;
  replace(el, text);
}

/** refusalNode makes the refusal line; dismiss() clears it. */
export function refusalNode(dismiss) {
  const text = h('span', { 'data-testid': 'refusal' });
  const el = h('div', { class: 'refusal', role: 'alert', hidden: true }, text,
    h('button', { type: 'button', class: 'link', 'aria-label': 'dismiss', onclick: dismiss }, '✕'));
  el.text = text;
  return el;
}

/** showRefusal shows line (one line) or hides the element when it is empty. */
export function showRefusal(el, line) {
  const one = String(line || '').split('\n')[0];
  el.hidden = !one;
  if (el.text.textContent !== one) replace(el.text, one);
}
