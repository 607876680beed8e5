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

// focusKey names a focused element so that its rebuilt twin can be found.
function focusKey(el) {
  const attrs = ['data-testid', 'data-channel', 'data-agent', 'data-event-id', 'data-option-id', 'data-request-id', 'data-emoji'];
  return attrs.filter((a) => el.hasAttribute(a)).map((a) => `[${a}="${CSS.escape(el.getAttribute(a))}"]`).join('');
}

/** keepFocus runs rebuild (which replaces el's children) and puts the focus back on the same control. */
export function keepFocus(el, rebuild) {
  const active = document.activeElement;
  const key = active && el.contains(active) && active !== el ? focusKey(active) : '';
  rebuild();
  if (key) el.querySelector(key)?.focus();
}
