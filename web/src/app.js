// The web chat's entry point. This first version shows the hub connection's
// state only; the chat itself (src/ui, src/hub, src/model) replaces it.

import "./app.css";

const stateEl = () => document.querySelector('[data-testid="connection-state"]');

function show(state) {
  const el = stateEl();
  if (!el) return;
  el.dataset.state = state;
  el.textContent = state;
}

// hubURL is the page's own origin as a websocket URL: the hub serves the
// app and the relay on one address.
function hubURL() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/`;
}

function connect(delay) {
  show(delay ? "reconnecting" : "connecting");
  const ws = new WebSocket(hubURL());
  ws.onopen = () => {
    delay = 0;
    show("connected");
  };
  ws.onmessage = (m) => {
    let msg;
    try {
      msg = JSON.parse(m.data);
    } catch {
      return;
    }
    if (Array.isArray(msg) && msg[0] === "AUTH") show("authenticating");
  };
  ws.onclose = () => {
    const next = Math.min((delay || 250) * 2, 10000);
    show("reconnecting");
    setTimeout(() => connect(next), next);
  };
}

connect(0);
