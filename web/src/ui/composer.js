// The composer: Enter sends, Shift-Enter (or Alt-Enter) starts a new line,
// "@" completes a member's name (Tab or Enter picks, the message then
// p-tags them), Up in an empty composer edits your last message.
import { h, replace } from './dom.js';

// handle is the word a completion inserts: the key's own name (an agent's
// "helper", not its label "helper (alice's agent)").
const handle = (it) => it.handle || it.name;

/** Composer is a textarea with @ completion; opts: {complete(prefix), send(text, mentions), editLast(), typing(), placeholder}. */
export class Composer {
  constructor(opts) {
    this.opts = opts;
    this.picked = new Map(); // name -> pubkey, chosen from the completion list
    this.area = h('textarea', { class: 'composer', 'data-testid': 'composer', rows: '1', placeholder: opts.placeholder || 'Message',
      'aria-label': opts.placeholder || 'Message', 'aria-autocomplete': 'list', enterkeyhint: 'send' });
    this.list = h('ul', { class: 'completions', role: 'listbox', hidden: true, 'data-testid': 'mention-list' });
    this.sel = 0;
    this.items = [];
    this.area.addEventListener('keydown', (e) => this.keydown(e));
    this.area.addEventListener('input', () => {
      this.grow();
      this.suggest();
      if (this.area.value) opts.typing?.();
    });
    this.area.addEventListener('blur', () => setTimeout(() => this.hideList(), 150));
    this.el = h('div', { class: 'composer-wrap' }, this.list, this.area,
      h('div', { class: 'composer-hint' }, 'Enter sends · Shift-Enter new line · @ mentions'));
  }

  setPlaceholder(p) {
    this.area.placeholder = p;
    this.area.setAttribute('aria-label', p);
  }

  grow() {
    this.area.rows = Math.min(8, Math.max(1, this.area.value.split('\n').length));
  }

  // word is the @word being typed before the caret, or null.
  word() {
    const upto = this.area.value.slice(0, this.area.selectionStart);
    const m = /(^|\s)@([^\s@]*)$/.exec(upto);
    return m ? { prefix: m[2], start: upto.length - m[2].length - 1 } : null;
  }

  suggest() {
    const w = this.word();
    this.items = w ? this.opts.complete(w.prefix).slice(0, 8) : [];
    if (!this.items.length) return this.hideList();
    this.sel = Math.min(this.sel, this.items.length - 1);
    replace(this.list, this.items.map((it, i) => h('li', { role: 'option', 'aria-selected': String(i === this.sel), 'data-testid': 'mention-option',
      'data-pubkey': it.pubkey, onmousedown: (e) => { e.preventDefault(); this.pick(i); } }, '@' + handle(it), handle(it) !== it.name ? h('span', { class: 'dim' }, ' ' + it.name) : null)));
    this.list.hidden = false;
  }

  hideList() {
    this.list.hidden = true;
    this.items = [];
    this.sel = 0;
  }

  pick(i) {
    const it = this.items[i];
    const w = this.word();
    if (!it || !w) return;
    const v = this.area.value;
    const name = handle(it).replace(/\s+/g, '_');
    const before = v.slice(0, w.start) + '@' + name + ' ';
    this.area.value = before + v.slice(this.area.selectionStart);
    this.area.setSelectionRange(before.length, before.length);
    this.picked.set(name, it.pubkey);
    this.hideList();
  }

  // mentions are the picked members whose @name is still in the text.
  mentions(text) {
    const out = [];
    for (const [name, pk] of this.picked) {
      const re = new RegExp('(^|\\s)@' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?![\\w-])');
      if (re.test(text) && !out.includes(pk)) out.push(pk);
    }
    return out;
  }

  keydown(e) {
    if (!this.list.hidden && this.items.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.sel = (this.sel + (e.key === 'ArrowDown' ? 1 : this.items.length - 1)) % this.items.length;
        return this.suggest();
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
        e.preventDefault();
        return this.pick(this.sel);
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        return this.hideList();
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.altKey && !e.isComposing) {
      e.preventDefault();
      return this.submit();
    }
    if (e.key === 'ArrowUp' && !this.area.value.trim() && this.opts.editLast?.()) e.preventDefault();
  }

  async submit() {
    const text = this.area.value.trim();
    if (!text) return;
    const mentions = this.mentions(text);
    this.area.value = '';
    this.grow();
    try {
      await this.opts.send(text, mentions);
      this.picked.clear();
    } catch {
      if (!this.area.value) this.area.value = text; // give the text back to fix and resend
      this.grow();
    }
  }

  focus() {
    this.area.focus();
  }

  /** restore gives a discarded message's text back to fix and send again (when the box is empty). */
  restore(text) {
    if (!text || this.area.value.trim()) return;
    this.area.value = text;
    this.grow();
    this.focus();
  }
}
