// Times as the page shows them (the browser's locale and time zone).

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** hhmm shows unix seconds as a clock time. */
export const hhmm = (s) => clock.format(new Date(s * 1000));

/** fullTime shows unix seconds as date and time (for tooltips). */
export const fullTime = (s) => full.format(new Date(s * 1000));

/** dayOf is a key for the calendar day of unix seconds. */
export const dayOf = (s) => new Date(s * 1000).toDateString();

/** dayTitle names the calendar day of unix seconds. */
export const dayTitle = (s) => dayFmt.format(new Date(s * 1000));

/** elapsed shows milliseconds as 5s, 3m 2s or 1h 4m. */
export function elapsed(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
