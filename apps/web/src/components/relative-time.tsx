"use client";

import { useSyncExternalStore } from "react";
import { exactTimeText, utcMinute, whenText } from "./time-format";

/** How often a shown time is said again ("just now" becomes "1 minute ago"). */
const TICK_MS = 30_000;

/** One timer for every time on the screen. */
function subscribeToTicks(onTick: () => void) {
  const timer = setInterval(onTick, TICK_MS);
  return () => clearInterval(timer);
}
/** The clock to the tick: the same value between ticks, as `useSyncExternalStore` needs. */
const currentTick = () => Math.floor(Date.now() / TICK_MS) * TICK_MS;
const noTickOnTheServer = () => null;

/**
 * Every time the panel shows (time-format.ts): "5 minutes ago" while recent, else the date in the reader's time zone,
 * with the exact time as its title. The server and the browser's first (hydrating) render both show the UTC time,
 * so a browser in another time zone (or a clock a minute on) never mismatches the server's HTML (issue 22 item 6);
 * the reader's words follow once the page is live, and move on with the clock.
 */
export function RelativeTime({ iso }: { iso: string }) {
  const now = useSyncExternalStore(subscribeToTicks, currentTick, noTickOnTheServer);
  return (
    <time dateTime={iso} title={now === null ? utcMinute(iso) : exactTimeText(iso)}>
      {now === null ? utcMinute(iso) : whenText(iso, now)}
    </time>
  );
}
