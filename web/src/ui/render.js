// Message text to DOM: markdown.js tokens become elements whose text is set
// with text nodes only. Links are http(s) only (checked by the parser and
// again here) and open in a new tab with rel="noopener noreferrer".
import { h } from './dom.js';
import { parse, safeUrl } from './markdown.js';

const inlineTags = { b: 'strong', i: 'em', s: 'del' };

function inlineNodes(tokens, opts) {
  return tokens.map((t) => {
    switch (t.t) {
      case 'text':
        return t.v;
      case 'br':
        return h('br');
      case 'code':
        return h('code', null, t.v);
      case 'a': {
        const href = safeUrl(t.href);
        if (!href) return inlineNodes(t.c, opts);
        return h('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, inlineNodes(t.c, opts));
      }
      case 'mention':
        return h('span', { class: 'mention' }, '@' + (opts.mentionName ? opts.mentionName(t.npub) : t.npub.slice(0, 12) + '…'));
      default:
        return h(inlineTags[t.t] || 'span', null, inlineNodes(t.c || [], opts));
    }
  });
}

/**
 * renderText returns a fragment for a message's text. opts.mentionName(npub)
 * names a mentioned key.
 */
export function renderText(text, opts = {}) {
  const frag = document.createDocumentFragment();
  for (const b of parse(text)) {
    if (b.t === 'pre') frag.append(h('pre', null, h('code', null, b.v)));
    else if (b.t === 'quote') frag.append(h('blockquote', null, inlineNodes(b.c, opts)));
    else if (b.t === 'ul') frag.append(h('ul', null, b.items.map((c) => h('li', null, inlineNodes(c, opts)))));
    else frag.append(h('p', null, inlineNodes(b.c, opts)));
  }
  return frag;
}
