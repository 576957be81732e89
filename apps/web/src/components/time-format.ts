/**
 * How the panel says when something happened (or will: a token's expiry). One format everywhere, through
 * `<RelativeTime>` (relative-time.tsx): relative while recent ("5 minutes ago", "in 3 days"), else the date and time
 * in the reader's own time zone and locale ("3 Dec 2026, 07:54"); the exact time, with its time zone, is the
 * element's title. The browser's `Intl` does the wording: no date library.
 */

/** Within this far of now (either way), a time reads relative: people say "2 hours ago", not a date, for today. */
export const RECENT_MS = 7 * 24 * 60 * 60 * 1000;

/** Where a format reads from: the reader's locale and time zone unless a test (or the server) names them. */
export interface TimeFormatOptions {
  locale?: string;
  timeZone?: string;
}

const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", Infinity],
];

/** "5 minutes ago", "in 3 days", "yesterday": for a time within `RECENT_MS` of `now`. */
function relativeWords(iso: string, now: number): string {
  let amount = (Date.parse(iso) - now) / 1000;
  // Under a minute either way is "now": a second-by-second count would only flicker.
  if (Math.abs(amount) < 60) return "just now";
  let unit: Intl.RelativeTimeFormatUnit = "second";
  for (const [next, size] of STEPS) {
    unit = next;
    if (Math.abs(amount) < size) break;
    amount /= size;
  }
  return RELATIVE.format(Math.round(amount), unit);
}

/** The date and time to the minute, in the reader's (or the given) locale and time zone: "3 Dec 2026, 07:54". */
export function dateTimeText(iso: string, options: TimeFormatOptions = {}): string {
  return new Intl.DateTimeFormat(options.locale, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: options.timeZone,
  }).format(new Date(iso));
}

/** The exact time, to the second, with its time zone's name: the title of every time the panel shows. */
export function exactTimeText(iso: string, options: TimeFormatOptions = {}): string {
  return new Intl.DateTimeFormat(options.locale, {
    dateStyle: "medium",
    timeStyle: "long",
    timeZone: options.timeZone,
  }).format(new Date(iso));
}

/** What a time reads as: relative within `RECENT_MS` of `now`, else its date and time. */
export function whenText(iso: string, now: number, options: TimeFormatOptions = {}): string {
  return Math.abs(Date.parse(iso) - now) < RECENT_MS ? relativeWords(iso, now) : dateTimeText(iso, options);
}

/**
 * What the server's HTML (and the browser's hydrating render) show before the browser knows its time zone and
 * clock: the same characters in any process, as they are cut from the ISO string, not formatted by a locale whose
 * data may differ between Node and the browser (issue 22 item 6: no hydration mismatch).
 */
export const utcMinute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
