"use client";

import { useSyncExternalStore } from "react";
import { formatTime, relativeTime } from "./labels";

const noSubscription = () => () => undefined;

/** The same words on the server and in any browser's time zone: the time in UTC, to the minute. */
export const utcMinute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * "2 minutes ago", with the exact local time as its title. The server and the browser's first (hydrating)
 * render both show the UTC time, so a browser in another time zone (or a clock a minute on) never mismatches
 * the server's HTML (issue 22 item 6); the relative words and local time follow once the page is live.
 */
export function RelativeTime({ iso }: { iso: string }) {
  const live = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return (
    <time dateTime={iso} title={live ? formatTime(iso) : utcMinute(iso)}>
      {live ? relativeTime(iso) : utcMinute(iso)}
    </time>
  );
}
