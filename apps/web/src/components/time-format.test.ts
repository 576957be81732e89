import { describe, expect, it } from "vitest";
import { dateTimeText, exactTimeText, RECENT_MS, utcMinute, whenText } from "./time-format";

/** The one way the panel says when (issue 36): the reader's time zone, relative while recent. */
describe("whenText", () => {
  const now = Date.parse("2026-12-03T07:56:28.000Z");
  const at = (ms: number) => new Date(now + ms).toISOString();
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const DAY = 24 * HOUR;

  it("says recent times relative, either way of now", () => {
    expect(whenText(at(-20_000), now)).toBe("just now");
    expect(whenText(at(20_000), now)).toBe("just now");
    expect(whenText(at(-5 * MINUTE), now)).toBe("5 minutes ago");
    expect(whenText(at(-HOUR), now)).toBe("1 hour ago");
    expect(whenText(at(-26 * HOUR), now)).toBe("yesterday");
    expect(whenText(at(3 * DAY), now)).toBe("in 3 days");
    expect(whenText(at(-6 * DAY), now)).toBe("6 days ago");
  });

  it("says older (and farther) times as a date and time in the reader's zone, one format for all", () => {
    const options = { locale: "en-GB", timeZone: "Europe/Berlin" };
    // 12/3/2026, 7:54:10 AM (Policy history) and 03/12/2026, 07:56:28 UTC (tokens) were one moment's two formats.
    expect(whenText(at(-30 * DAY), now, options)).toBe("3 Nov 2026, 08:56");
    expect(whenText(at(RECENT_MS), now, options)).toBe(dateTimeText(at(RECENT_MS), options));
    expect(dateTimeText("2026-12-03T07:54:10Z", { locale: "en-US", timeZone: "UTC" })).toMatch(
      /^Dec 3, 2026, 7:54\sAM$/,
    );
    // The reader's zone, not the server's: the same moment in Tokyo is the next day.
    expect(dateTimeText("2026-12-03T20:00:00Z", { locale: "en-GB", timeZone: "Asia/Tokyo" })).toBe("4 Dec 2026, 05:00");
  });

  it("gives the exact time, to the second and with its zone, for the title", () => {
    expect(exactTimeText("2026-12-03T07:54:10Z", { locale: "en-GB", timeZone: "UTC" })).toBe(
      "3 Dec 2026, 07:54:10 UTC",
    );
  });

  it("renders the same placeholder characters anywhere (the server's HTML and the hydrating render)", () => {
    expect(utcMinute("2026-12-03T07:54:10.123Z")).toBe("2026-12-03 07:54 UTC");
  });
});
