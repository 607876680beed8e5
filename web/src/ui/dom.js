// The page's one way to build elements: attributes are set by name and every
// child string becomes a text node, so text from the hub is never parsed as
// HTML. No innerHTML anywhere in the app.

// Attributes that may carry script or a URL are refused here; links go
// through safeLink (markdown.js) and nothing else sets an href or src.
const refused = /^(on|style$|srcdoc$|formaction$)/i;

/**
 * h makes an element: h('button', {class: 'x', 'data-testid': 'y', onclick: fn}, 'text', child).
 * Attribute values false/null/undefined are left out; true sets an empty attribute.
 * Function values named on* are bound with addEventListener (never as attributes).
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (typeof v === 'function' && k.startsWith('on')) {
      el.addEventListener(k.slice(2), v);
      continue;
    }
    if (v === false || v === null || v === undefined) continue;
    if (refused.test(k)) throw new Error(`dom: attribute ${k} is not allowed`);
    if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** append adds children (strings as text nodes, arrays flattened, null skipped). */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** replace empties el and adds children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** $ finds one element by data-testid (or any selector) under root. */
export function $(sel, root = document) {
  return root.querySelector(sel.startsWith('@') ? `[data-testid="${sel.slice(1)}"]` : sel);
}

/**
 * place makes el's children the nodes of out, touching only what changed: a
 * node that stays where it is is not moved, so the focus inside it (an open
 * editor, a focused message) and a click in progress survive an update.
 */
export function place(el, out) {
  const want = new Set(out);
  for (const c of [...el.children]) if (!want.has(c)) c.remove();
  let cur = el.firstChild;
  for (const n of out) {
    if (n === cur) cur = cur.nextSibling;
    else el.insertBefore(n, cur);
  }
}

/**
 * Keyed keeps nodes by key between renders: node(key, sig, make) returns the
 * node made for key last time when its signature is the same, else a new one
 * from make(). Keys not asked for since the last sweep() are forgotten then.
 */
export class Keyed {
  constructor() {
    this.last = new Map();
    this.now = new Map();
  }

  node(key, sig, make) {
    const old = this.now.get(key) || this.last.get(key);
    const got = old && old.sig === sig ? old : { sig, node: make() };
    this.now.set(key, got);
    return got.node;
  }

  sweep() {
    this.last = this.now;
    this.now = new Map();
  }
}
