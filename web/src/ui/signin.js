// The sign-in screens: pair this browser as a device (paste the `hive pair`
// URI or scan its QR code, compare the 6-digit SAS), import an nsec or
// ncryptsec, join with an invite (a new key made here), or use a NIP-07
// extension; and the unlock screen for a key
// stored under a passphrase. The work is done by the actions passed in.
import { h, replace } from './dom.js';
import { startScanner } from './scan.js';

function statusLine() {
  return h('div', { class: 'status-line', role: 'status', 'aria-live': 'polite' });
}

function fail(line, err) {
  line.className = 'status-line err';
  replace(line, String(err?.message || err));
}

function say(line, text) {
  line.className = 'status-line dim';
  replace(line, text);
}

// busy disables buttons while fn runs, showing its failure on line.
async function busy(buttons, line, fn) {
  buttons.forEach((b) => (b.disabled = true));
  try {
    await fn();
  } catch (e) {
    fail(line, e);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

function pairSection(actions, storePass) {
  const uri = h('input', { 'data-testid': 'pair-uri', id: 'pair-uri', placeholder: 'nostrpair://…', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'pairing code' });
  const start = h('button', { class: 'primary', 'data-testid': 'pair-start', type: 'submit' }, 'Pair');
  const line = statusLine();
  const sasBox = h('div', { hidden: true });
  const video = h('video', { class: 'scanner', hidden: true, muted: true, playsinline: true });
  let scanning = null;
  const stopScan = () => {
    scanning?.stop();
    scanning = null;
    video.hidden = true;
  };
  const scan = h('button', { type: 'button', hidden: !('BarcodeDetector' in globalThis && navigator.mediaDevices), onclick: async () => {
    if (scanning) return stopScan();
    video.hidden = false;
    try {
      scanning = await startScanner(video, (text) => {
        stopScan();
        uri.value = text;
        form.requestSubmit();
      });
    } catch (e) {
      stopScan();
      fail(line, e);
    }
  } }, 'Scan QR code');
  const askSas = (code) => new Promise((resolve) => {
    const yes = h('button', { class: 'primary', 'data-testid': 'pair-confirm', type: 'button', onclick: () => answer(true) }, 'Yes, they match');
    const no = h('button', { 'data-testid': 'pair-deny', type: 'button', onclick: () => answer(false) }, 'No');
    function answer(ok) {
      yes.disabled = no.disabled = true;
      say(line, ok ? 'Confirmed; waiting for the other device…' : 'Cancelled.');
      resolve(ok);
    }
    replace(sasBox,
      h('p', null, 'Does the other screen show the same code?'),
      h('div', { class: 'sas', 'data-testid': 'pair-sas', 'data-sas': code, 'aria-label': 'code ' + code.split('').join(' ') }, code.slice(0, 3) + ' ' + code.slice(3)),
      h('div', { class: 'row' }, yes, no));
    sasBox.hidden = false;
    yes.focus();
  });
  const form = h('form', { onsubmit: (e) => {
    e.preventDefault();
    stopScan();
    sasBox.hidden = true;
    busy([start, scan], line, async () => {
      say(line, 'Connecting to the hub…');
      await actions.pair(uri.value.trim(), { status: (t) => say(line, t), sas: askSas }, storePass());
    });
  } },
  h('p', { class: 'dim' }, 'On a device where you use hive, run ', h('code', null, 'hive pair'), ', then paste its code here or scan its QR code.'),
  h('div', { class: 'row' }, uri, start, scan), video, sasBox, line);
  return h('section', { 'aria-labelledby': 'pair-h' }, h('h2', { id: 'pair-h' }, 'Pair this browser'), form);
}

// submitForm is a form of children that, when submitted, says saying on
// line and runs work with buttons disabled (busy).
function submitForm(buttons, line, saying, work, ...children) {
  return h('form', { onsubmit: (e) => {
    e.preventDefault();
    busy(buttons, line, async () => {
      say(line, saying);
      await work();
    });
  } }, ...children);
}

function importSection(actions, storePass) {
  const key = h('input', { 'data-testid': 'key-import', type: 'password', placeholder: 'nsec1… or ncryptsec1…', autocomplete: 'off', 'aria-label': 'secret key' });
  const pass = h('input', { type: 'password', autocomplete: 'off', placeholder: 'its passphrase', 'aria-label': 'ncryptsec passphrase' });
  const passRow = h('label', { hidden: true }, 'The ncryptsec’s passphrase', pass);
  key.addEventListener('input', () => (passRow.hidden = !key.value.trim().startsWith('ncryptsec1')));
  const submit = h('button', { class: 'primary', 'data-testid': 'key-import-submit', type: 'submit' }, 'Sign in');
  const line = statusLine();
  const form = submitForm([submit], line, 'Signing in…', async () => {
    await actions.importKey(key.value.trim(), pass.value, storePass());
    key.value = pass.value = '';
  }, h('div', { class: 'row' }, key, submit), passRow, line);
  return h('section', { 'aria-labelledby': 'import-h' }, h('h2', { id: 'import-h' }, 'Import a key'), form);
}

function inviteSection(actions, storePass, invite) {
  const link = h('input', { 'data-testid': 'invite-link', id: 'invite-link', placeholder: 'invite link or claim', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'invite link' });
  if (invite) link.value = invite;
  const submit = h('button', { class: 'primary', 'data-testid': 'invite-join', type: 'submit' }, 'Join');
  const line = statusLine();
  const form = submitForm([submit], line, 'Making a key in this browser and joining the hub…', () => actions.invite(link.value.trim(), storePass()),
  h('p', { class: 'dim' }, 'Paste the invite link a hub member gave you (', h('code', null, 'hive invite'), '). This browser makes a new key and joins with it.'),
  h('div', { class: 'row' }, link, submit), line);
  return h('section', { 'aria-labelledby': 'invite-h' }, h('h2', { id: 'invite-h' }, 'I have an invite'), form);
}

function extensionSection(actions) {
  const line = statusLine();
  const btn = h('button', { 'data-testid': 'nip07-start', type: 'button', onclick: () => busy([btn], line, async () => {
    if (!globalThis.nostr) throw new Error('No NIP-07 extension found in this browser (for example nos2x or Alby).');
    say(line, 'Asking the extension…');
    await actions.extension();
  }) }, 'Use a browser extension (NIP-07)');
  return h('section', { 'aria-labelledby': 'ext-h' }, h('h2', { id: 'ext-h' }, 'Sign in with an extension'), btn, line);
}

/**
 * renderSignIn shows the sign-in screen; actions: pair, importKey, invite,
 * extension. invite, when the page was opened from an invite link, puts
 * "I have an invite" first, filled in.
 */
export function renderSignIn(root, actions, message, invite) {
  const pass = h('input', { type: 'password', autocomplete: 'new-password', 'data-testid': 'store-passphrase', 'aria-label': 'passphrase for this browser' });
  const storePass = () => pass.value;
  const join = inviteSection(actions, storePass, invite);
  replace(root, h('div', { class: 'signin' },
    h('h1', null, invite ? 'Join this hub' : 'Sign in to this hub'),
    message ? h('p', { class: 'err', role: 'alert' }, message) : null,
    invite ? join : null,
    pairSection(actions, storePass),
    importSection(actions, storePass),
    invite ? null : join,
    extensionSection(actions),
    h('section', null, h('label', null, 'Lock the key in this browser with a passphrase (optional; asked for each time you open the page)', pass))));
  root.querySelector(invite ? '[data-testid="invite-join"]' : '[data-testid="pair-uri"]').focus();
}

/** renderUnlock asks for the passphrase of a stored key; actions: unlock, forget. */
export function renderUnlock(root, who, actions) {
  const pass = h('input', { type: 'password', autocomplete: 'current-password', 'data-testid': 'unlock-passphrase', 'aria-label': 'passphrase' });
  const submit = h('button', { class: 'primary', type: 'submit', 'data-testid': 'unlock-submit' }, 'Unlock');
  const line = statusLine();
  replace(root, h('div', { class: 'signin' },
    h('h1', null, 'Unlock your key'),
    h('p', { class: 'dim' }, 'This browser keeps the key of ', h('strong', null, who), ' locked with a passphrase.'),
    h('form', { onsubmit: (e) => {
      e.preventDefault();
      busy([submit], line, () => actions.unlock(pass.value));
    } }, h('div', { class: 'row' }, pass, submit), line),
    h('p', null, h('button', { class: 'link danger', type: 'button', 'data-testid': 'forget-key', onclick: actions.forget }, 'Sign out and forget this key'))));
  pass.focus();
}
