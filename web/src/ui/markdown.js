// A small allow-list markdown: the message text is parsed into plain tokens
// (no HTML is ever produced or parsed), and render.js turns the tokens into
// DOM nodes with textContent. Raw HTML in a message stays literal text.
// Supported: paragraphs and line breaks, ``` fenced code ```, `code`,
// **bold**, *italic* / _italic_, ~~strike~~, > quotes, - lists,
// [text](https://…) and bare http(s) links, nostr:npub1… mentions.

const inlineRe = new RegExp([
  '`([^`\\n]+)`', // 1 code
  '\\*\\*(?=\\S)([^]+?)\\*\\*', // 2 bold
  '~~(?=\\S)([^]+?)~~', // 3 strike
  '(?<![\\w*])\\*(?=[^\\s*])([^*\\n]+?)\\*(?![\\w*])', // 4 italic
  '(?<![\\w_])_(?=[^\\s_])([^_\\n]+?)_(?![\\w_])', // 5 italic
  '\\[([^\\]\\n]+)\\]\\(([^)\\s]+)\\)', // 6, 7 link
  '(https?://[^\\s<>"]+)', // 8 bare link
  '(?:nostr:)?(npub1[02-9ac-hj-np-z]{58})', // 9 mention
].join('|'), 'g');

// maxDepth bounds nesting (bold in a link in italics ...).
const maxDepth = 4;

/**
 * safeUrl returns url normalised when it is an absolute http or https URL,
 * else null (javascript:, data:, relative and malformed URLs are refused).
 */
export function safeUrl(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
}

// trimLink keeps sentence punctuation after a bare link out of it.
function trimLink(s) {
  const m = /[.,;:!?)\]'"]+$/.exec(s);
  if (!m) return [s, ''];
  // A closing paren that has its opening one inside the URL belongs to it.
  let cut = m.index;
  if (s.includes('(') && s[cut] === ')') cut++;
  return [s.slice(0, cut), s.slice(cut)];
}

/** inline parses one run of text into inline tokens. */
export function inline(text, depth = 0) {
  const out = [];
  const push = (v) => {
    if (!v) return;
    const last = out[out.length - 1];
    if (last && last.t === 'text') last.v += v;
    else out.push({ t: 'text', v });
  };
  const nested = (s) => (depth >= maxDepth ? [{ t: 'text', v: s }] : inline(s, depth + 1));
  let at = 0;
  const re = new RegExp(inlineRe); // its own lastIndex: nested calls scan with theirs
  for (let m; (m = re.exec(text)); ) {
    push(text.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[1] !== undefined) out.push({ t: 'code', v: m[1] });
    else if (m[2] !== undefined) out.push({ t: 'b', c: nested(m[2]) });
    else if (m[3] !== undefined) out.push({ t: 's', c: nested(m[3]) });
    else if (m[4] !== undefined || m[5] !== undefined) out.push({ t: 'i', c: nested(m[4] ?? m[5]) });
    else if (m[6] !== undefined) {
      const href = safeUrl(m[7]);
      if (href) out.push({ t: 'a', href, c: nested(m[6]) });
      else push(m[0]); // a refused link stays visible as plain text
    } else if (m[8] !== undefined) {
      const [url, rest] = trimLink(m[8]);
      const href = safeUrl(url);
      if (href) out.push({ t: 'a', href, c: [{ t: 'text', v: url }] });
      else push(url);
      push(rest);
    } else if (m[9] !== undefined) out.push({ t: 'mention', npub: m[9] });
  }
  push(text.slice(at));
  return out;
}

// lines adds inline tokens for lines joined by line breaks.
function lines(ls) {
  const out = [];
  ls.forEach((l, i) => {
    if (i) out.push({ t: 'br' });
    out.push(...inline(l));
  });
  return out;
}

/**
 * parse turns message text into block tokens:
 * {t:'p', c}, {t:'pre', v}, {t:'quote', c}, {t:'ul', items: [c...]}.
 */
export function parse(text) {
  const src = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
  const blocks = [];
  let para = [];
  const flush = () => {
    if (para.length) blocks.push({ t: 'p', c: lines(para) });
    para = [];
  };
  for (let i = 0; i < src.length; i++) {
    const l = src[i];
    if (/^\s*```/.test(l)) {
      flush();
      const code = [];
      for (i++; i < src.length && !/^\s*```\s*$/.test(src[i]); i++) code.push(src[i]);
      blocks.push({ t: 'pre', v: code.join('\n') });
      continue;
    }
    if (/^>\s?/.test(l)) {
      flush();
      const q = [];
      for (; i < src.length && /^>\s?/.test(src[i]); i++) q.push(src[i].replace(/^>\s?/, ''));
      i--;
      blocks.push({ t: 'quote', c: lines(q) });
      continue;
    }
    if (/^\s*[-*]\s+/.test(l)) {
      flush();
      const items = [];
      for (; i < src.length && /^\s*[-*]\s+/.test(src[i]); i++) items.push(inline(src[i].replace(/^\s*[-*]\s+/, '')));
      i--;
      blocks.push({ t: 'ul', items });
      continue;
    }
    if (l.trim() === '') flush();
    else para.push(l);
  }
  flush();
  return blocks;
}
