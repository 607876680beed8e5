// One timeline row as a DOM node: author and time, the text (markdown.js,
// text nodes only), the edited mark, reactions, the thread summary and the
// row's actions (react, reply in thread, edit and delete for your own).
import { h } from './dom.js';
import { renderText } from './render.js';
import { fullTime, hhmm } from './time.js';
import { quoteLine, runWords } from '../model/index.js';

/** QUICK_REACTIONS are the emojis the react button offers. */
export const QUICK_REACTIONS = ['👍', '❤️', '😂', '🎉', '👀', '🚀'];

/**
 * signature is everything a row's node depends on: an unchanged signature
 * means the node can be reused as it is.
 */
export function signature(row, view) {
  return JSON.stringify([row.pending, row.attempt, row.reason, row.text, row.edited, row.edited_at, row.deleted, row.reactions, row.receipts, row.run, row.approval, row.replies, row.last_reply,
    view.first, view.author, view.mine, view.mentionsMe, view.inThread, view.text, view.mentioned, view.quote]);
}

function reactionChips(row, ctx) {
  if (!row.reactions?.length) return null;
  return h('div', { class: 'reactions' }, row.reactions.map((r) => {
    const mine = r.who.some((pk) => ctx.own(pk));
    const who = r.who.map((pk) => ctx.name(pk)).join(', ');
    return h('button', { type: 'button', class: 'reaction' + (mine ? ' mine' : ''), 'data-testid': 'reaction', 'data-emoji': r.emoji,
      'aria-pressed': String(mine), title: who, 'aria-label': `${r.emoji} ${r.count}: ${who}`,
      onclick: () => ctx.toggleReaction(row, r.emoji, mine) }, `${r.emoji} ${r.count}`);
  }));
}

// receiptWords says where an agent's answer to a row stands.
const receiptWords = { queued: 'queued', working: 'working…', answered: 'answered', failed: 'failed', 'not-answered': 'not answering' };

function receiptBadges(row, ctx) {
  if (!row.receipts?.length) return null;
  return h('div', { class: 'receipts' }, row.receipts.map((r) => h('span', { class: 'receipt', 'data-testid': 'receipt', 'data-agent': r.agent, 'data-status': r.status,
    title: r.reason || '' }, `${ctx.name(r.agent)}: ${receiptWords[r.status] || r.status}`, r.reason && /failed|not-answered/.test(r.status) ? ` (${r.reason})` : '')));
}

function runBadge(row) {
  if (!row.run) return null;
  return h('div', { class: 'receipts' }, h('span', { class: 'receipt run', 'data-testid': 'run-badge', 'data-status': row.run.status, 'data-run': row.run.run,
    title: row.run.reason || '' }, runWords(row.run, hhmm)));
}

// approvalButtons decide a workflow's approval request that mentions the
// member: ✅ or ❌ on it, as hive chat's a and d (the runner says whether it
// counted, on the run's card).
function approvalButtons(row, view, ctx) {
  if (!row.approval || !view.mentionsMe) return null;
  return h('div', { class: 'approval-actions', role: 'group', 'aria-label': 'approval' },
    h('button', { type: 'button', class: 'primary', 'data-testid': 'approve', onclick: () => ctx.react(row, '✅') }, 'Approve'),
    h('button', { type: 'button', class: 'danger', 'data-testid': 'deny', onclick: () => ctx.react(row, '❌') }, 'Deny'));
}

function picker(row, ctx, close) {
  return h('div', { class: 'reactions picker', role: 'group', 'aria-label': 'react with' },
    QUICK_REACTIONS.map((e) => h('button', { type: 'button', class: 'reaction', 'data-testid': 'react-option', 'data-emoji': e,
      onclick: () => { close(); ctx.react(row, e); } }, e)));
}

function actions(row, ctx, node, view) {
  const bar = h('div', { class: 'actions', role: 'toolbar', 'aria-label': 'message actions' });
  let open = null;
  const togglePicker = () => {
    if (open) { open.remove(); open = null; return; }
    open = picker(row, ctx, () => { open?.remove(); open = null; });
    node.append(open);
    open.querySelector('button').focus();
  };
  bar.append(h('button', { type: 'button', 'data-testid': 'react-open', title: 'React', 'aria-label': 'React', onclick: togglePicker }, 'React'));
  if (!view.inThread) {
    bar.append(h('button', { type: 'button', 'data-testid': 'thread-open', title: 'Reply in thread', 'aria-label': 'Reply in thread', onclick: () => ctx.openThread(row.id) }, 'Reply'));
  }
  if (view.mine) {
    bar.append(h('button', { type: 'button', 'data-testid': 'message-edit', title: 'Edit', 'aria-label': 'Edit', onclick: () => ctx.startEdit(row, node) }, 'Edit'));
    bar.append(h('button', { type: 'button', 'data-testid': 'message-delete', title: 'Delete', 'aria-label': 'Delete', class: 'danger', onclick: () => ctx.remove(row) }, 'Delete'));
  }
  return bar;
}

// pendingLine says where a message not yet stored stands: "sending…", or
// "not sent: <the hub's reason>" with Retry (the same event) and Discard
// (its text goes back to the composer).
function pendingLine(row, ctx) {
  if (row.pending === 'sending') return h('div', { class: 'pending-state', 'data-testid': 'message-status', 'data-state': 'sending', role: 'status' }, 'sending…');
  return h('div', { class: 'pending-state failed', 'data-testid': 'message-status', 'data-state': 'failed', role: 'alert' },
    h('span', { class: 'reason' }, 'not sent: ' + row.reason),
    h('button', { type: 'button', class: 'link', 'data-testid': 'message-retry', onclick: () => ctx.retry(row) }, 'Retry'),
    h('button', { type: 'button', class: 'link danger', 'data-testid': 'message-discard', onclick: () => ctx.discard(row) }, 'Discard'));
}

/** messageNode renders row; view: {first, author, mine, mentionsMe, inThread, text}. */
export function messageNode(row, view, ctx) {
  const cls = ['msg'];
  if (view.first) cls.push('first');
  if (row.system) cls.push('system');
  if (row.deleted) cls.push('deleted');
  if (view.mentionsMe) cls.push('mentions-me');
  if (row.pending) cls.push('pending', row.pending);
  const node = h('div', { class: cls.join(' '), 'data-testid': 'message', 'data-event-id': row.id, tabindex: '-1',
    role: 'article', 'aria-label': `${view.author}, ${hhmm(row.created_at)}${row.pending === 'sending' ? ', sending' : row.pending ? ', not sent' : ''}` });
  if (row.pending) {
    node.dataset.pending = row.pending;
    node.dataset.attempt = String(row.attempt); // which publish of the same event the row shows
  }
  const time = h('time', { datetime: new Date(row.created_at * 1000).toISOString(), title: fullTime(row.created_at) }, hhmm(row.created_at));
  node.append(h('span', { class: 'when', 'aria-hidden': 'true' }, hhmm(row.created_at)));
  node.append(h('div', { class: 'meta' }, h('span', { class: 'author' }, view.author), time));
  if (view.quote) {
    // the quoted message's author and first line, as text (never its bech32 reference)
    node.append(h('div', { class: 'quote', 'data-testid': 'message-quote', 'data-quote-id': view.quote.id, title: quoteLine(view.quote) },
      view.quote.name ? h('span', { class: 'quote-author' }, view.quote.name) : '', view.quote.name ? ' ' : '',
      h('span', { class: 'quote-text' }, view.quote.text || '(message not loaded or deleted)')));
  }
  const body = h('div', { class: 'body', 'data-testid': 'message-text' });
  if (row.deleted) body.append('(message deleted)');
  else body.append(renderText(view.text, { ...ctx, mentioned: new Set(view.mentioned.map((n) => n.toLowerCase())) }));
  if (row.edited) body.lastElementChild?.append(h('span', { class: 'edited', title: row.edited_at ? 'edited ' + fullTime(row.edited_at) : 'edited' }, '(edited)'));
  node.append(body);
  if (row.pending) {
    node.append(pendingLine(row, ctx));
    return node;
  }
  if (!row.deleted) node.append(reactionChips(row, ctx) || '', receiptBadges(row, ctx) || '', runBadge(row) || '', approvalButtons(row, view, ctx) || '');
  if (!view.inThread && row.replies > 0) {
    const n = row.replies === 1 ? '1 reply' : `${row.replies} replies`;
    node.append(h('button', { type: 'button', class: 'link thread-link', 'data-testid': 'thread-replies', 'data-replies': row.replies,
      onclick: () => ctx.openThread(row.id) }, `↳ ${n}`, row.last_reply ? `, last ${hhmm(row.last_reply)}` : ''));
  }
  if (!row.system && !row.deleted) node.append(actions(row, ctx, node, view));
  return node;
}

/** editBox replaces a message's body with an editor: Enter saves, Esc cancels. */
export function editBox(row, text, onSave, onDone) {
  const area = h('textarea', { 'data-testid': 'edit-input', 'aria-label': 'edit message', rows: '2' });
  area.value = text;
  const save = () => {
    const t = area.value.trim();
    if (t && t !== text) onSave(t);
    onDone();
  };
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing) { e.preventDefault(); save(); }
    if (e.key === 'Escape') { e.preventDefault(); onDone(); }
  });
  const box = h('div', { class: 'edit-box' }, area, h('div', { class: 'row dim' },
    h('button', { type: 'button', class: 'primary', 'data-testid': 'edit-save', onclick: save }, 'Save'),
    h('button', { type: 'button', onclick: onDone }, 'Cancel'), 'Enter saves · Esc cancels'));
  queueMicrotask(() => { area.focus(); area.setSelectionRange(area.value.length, area.value.length); });
  return box;
}
