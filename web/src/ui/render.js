// Message text to DOM: markdown.js tokens become elements whose text is set
// with text nodes only. Links are http(s) only (checked by the parser and
// again here) and open in a new tab with rel="noopener noreferrer".
import { h } from './dom.js';
import { parse, safeUrl } from './markdown.js';

const inlineTags = { b: 'strong', i: 'em', s: 'del' };

// mentionRe finds @name words in plain text.
const mentionRe = /(^|[^\w@])@([\p{L}\p{N}_.-]+)/gu;

// textWithMentions shows the @name words that name a mentioned key
// (opts.mentioned, lower-case names) as mentions.
function textWithMentions(v, opts) {
  if (!opts.mentioned?.size) return v;
  const out = [];
  let at = 0;
  for (const m of v.matchAll(mentionRe)) {
    const name = m[2].replace(/[.-]+$/, '');
    if (!opts.mentioned.has(name.toLowerCase())) continue;
    const start = m.index + m[1].length;
    out.push(v.slice(at, start), h('span', { class: 'mention' }, '@' + name));
    at = start + 1 + name.length;
  }
  out.push(v.slice(at));
  return out;
}

function inlineNodes(tokens, opts) {
  return tokens.map((t) => {
    switch (t.t) {
      case 'text':
        return textWithMentions(t.v, opts);
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
 * names a mentioned key; opts.mentioned (a Set of lower-case names) marks
 * the @name words of the row's mentions.
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
