// hive's web chat: the entry point. It builds the page's frame (top bar with
// the connection state, the refusal line, the alerts bar), signs in from the
// key kept in this browser (web/src/store) or shows the sign-in screens (an
// invite link opens "I have an invite" filled in), and
// runs the chat (web/src/ui/session.js, web/src/ui/chat.js).
import './app.css';
import { HubConnection } from './hub/connection.js';
import { localSigner, nip07Signer } from './hub/signer.js';
import { parseInvite } from './hub/invite.js';
import { generateSecretKey, parseSecretKey, publicKeyOf } from './keys/index.js';
import { joinPairing } from './pair/index.js';
import { forget, loadIdentity, saveExtension, saveLocal, unlock } from './store/keystore.js';
import { ChatView } from './ui/chat.js';
import { h, replace } from './ui/dom.js';
import { Presence } from './ui/presence.js';
import { Session } from './ui/session.js';
import { renderSignIn, renderUnlock } from './ui/signin.js';
import { connectionNode, refusalNode, showConnection, showRefusal } from './ui/status.js';

// hubURL is the hub that serves this page: its websocket is at the same origin.
const hubURL = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;

// sameHub says whether two websocket URLs name the same hub (scheme, host and port).
function sameHub(a, b) {
  try {
    const x = new URL(a);
    const y = new URL(b);
    return x.protocol === y.protocol && x.host === y.host;
  } catch {
    return false;
  }
}

// signedOut says whether a refusal means this key is no use any more.
const signedOut = (reason) => /revoked|expired|removed from the hub/i.test(reason || '');

class App {
  constructor(root) {
    this.title = h('div', { class: 'title' }, 'hive');
    this.menu = h('button', { type: 'button', class: 'menu', 'aria-label': 'channels', hidden: true }, '☰');
    this.conn = connectionNode();
    this.refusal = refusalNode(() => { if (this.session) this.session.error = ''; showRefusal(this.refusal, ''); });
    this.alerts = h('div', { class: 'alerts', 'data-testid': 'alerts', hidden: true, 'aria-live': 'assertive' });
    this.screen = h('div', { class: 'screen' });
    replace(root, h('header', { class: 'topbar' }, this.menu, this.title, this.conn), this.refusal, this.alerts, this.screen);
  }

  async boot() {
    let id;
    try {
      id = await loadIdentity();
    } catch (e) {
      return this.signIn(`This browser cannot keep a key (${e.message}); private windows may not allow it.`);
    }
    if (!id) return this.signIn();
    if (id.kind === 'nip07') return this.connect(id, null);
    if (id.locked) {
      return renderUnlock(this.screen, id.name || id.pubkey.slice(0, 12) + '…', {
        unlock: async (pass) => this.connect(id, await unlock(pass)),
        forget: () => this.forget(),
      });
    }
    return this.connect(id, await unlock());
  }

  signIn(message) {
    this.end();
    replace(this.title, 'hive');
    renderSignIn(this.screen, {
      pair: (uri, ui, pass) => this.pair(uri, ui, pass),
      importKey: async (text, keyPass, pass) => {
        const sk = parseSecretKey(text, keyPass || undefined);
        const pub = { pubkey: publicKeyOf(sk) };
        await saveLocal(sk, pub, pass);
        await this.connect(pub, sk);
      },
      invite: (text, pass) => this.join(text, pass),
      extension: async () => {
        const pubkey = await globalThis.nostr.getPublicKey();
        await saveExtension(pubkey);
        await this.connect({ kind: 'nip07', pubkey }, null);
      },
    }, message, pageInvite());
  }

  // join makes a key in this browser and joins the hub with an invite (NIP-43):
  // the key is kept only once the hub admitted it.
  async join(text, pass) {
    const { hub, claim } = parseInvite(text);
    if (hub && !sameHub(hub, hubURL())) throw new Error(`This invite is for ${hub}; open its link there.`);
    const sk = generateSecretKey();
    const pub = { pubkey: publicKeyOf(sk) };
    const conn = new HubConnection({ url: hubURL(), signer: localSigner(sk), invite: claim });
    try {
      await conn.start();
    } catch (e) {
      conn.close();
      throw new Error(e?.reason || e?.message || String(e));
    }
    await saveLocal(sk, pub, pass);
    history.replaceState(null, '', location.pathname + location.hash); // the claim is used: off the address bar
    await this.connect(pub, sk, conn);
  }

  async pair(uri, ui, pass) {
    let answer;
    const confirm = new Promise((resolve) => (answer = resolve));
    const states = {
      connecting: 'Connecting to the pairing relay…',
      sas: 'Compare the codes on both screens.',
      confirmed: 'Confirmed; waiting for the other device…',
      received: 'Received this browser’s attestation.',
      proving: 'Signing in to the hub with the new key…',
      done: 'Paired.',
    };
    const got = await joinPairing({
      uri,
      name: deviceName(),
      onSas: (sas) => ui.sas(sas).then(answer),
      confirm,
      onState: (st) => ui.status(states[st] || st),
    });
    const pub = { pubkey: got.pubkey, owner: got.owner, auth: got.auth, hubs: got.hubs, pin: got.pin, name: deviceName() };
    await saveLocal(got.secretKey, pub, pass);
    // pairing proved the key over a connection to the hub: keep it when it is this page's hub
    const same = got.connection && sameHub(got.connection.url, hubURL());
    if (got.connection && !same) got.connection.close();
    await this.connect(pub, got.secretKey, same ? got.connection : null);
  }

  async connect(id, secret, open) {
    this.end();
    const signer = id.kind === 'nip07' ? nip07Signer(globalThis.nostr) : localSigner(secret);
    const hub = open || new HubConnection({ url: hubURL(), signer, authTag: id.auth });
    this.offState = hub.on('state', (st) => {
      showConnection(this.conn, st);
      if (st.state === 'refused' && signedOut(st.reason)) this.kicked(st.reason);
    });
    if (open) showConnection(this.conn, { state: hub.state });
    try {
      if (!open) await hub.start();
    } catch (e) {
      hub.close();
      const reason = e?.reason || e?.message || String(e);
      if (signedOut(reason)) return this.kicked(reason);
      throw new Error(reason);
    }
    const s = new Session(hub);
    this.session = s;
    s.onChange(() => {
      showConnection(this.conn, s.conn);
      showRefusal(this.refusal, s.error || (s.conn.state === 'refused' ? s.conn.reason : ''));
    });
    this.view = new ChatView(s, this, () => this.forget());
    this.presence = new Presence(hub);
    const want = decodeURIComponent((/^#\/c\/(.+)$/.exec(location.hash) || [])[1] || '');
    await s.start(want).catch((e) => s.fail(e));
  }

  // kicked signs a revoked or expired device out and says why.
  async kicked(reason) {
    this.end();
    await forget().catch(() => {});
    this.signIn(`This browser was signed out: ${reason}. Pair it again to continue.`);
  }

  async forget() {
    this.end();
    await forget();
    this.signIn('Signed out; this browser no longer keeps the key.');
  }

  end() {
    this.presence?.stop();
    this.presence = null;
    this.view?.destroy();
    this.view = null;
    this.session?.close();
    this.session = null;
    this.offState?.();
    this.offState = null;
    showConnection(this.conn, { state: 'signed-out' });
    this.alerts.hidden = true;
    showRefusal(this.refusal, '');
  }
}

// pageInvite is the invite link the page was opened from (?c=claim&r=hub), or ''.
function pageInvite() {
  return new URLSearchParams(location.search).get('c') ? location.href : '';
}

function deviceName() {
  const p = navigator.userAgentData?.platform || (/(Android|iPhone|iPad|Mac|Windows|Linux)/.exec(navigator.userAgent) || [])[1] || '';
  return p ? `${p} browser` : 'browser'; // shown as "owner (Linux browser)"
}

const app = new App(document.getElementById('app'));
app.boot().catch((e) => app.signIn(String(e?.message || e)));
