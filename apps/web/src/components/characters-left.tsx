"use client";

/**
 * "480 characters left" under a text box with a limit, "12 characters too many" past it (issue 36): the person sees
 * the limit while typing instead of hearing it from the server after sending. Quiet for screen readers until the
 * person tries to send (`announce`) or is within a tenth of the limit, so every keystroke is not read out.
 */
export function CharactersLeft({
  id,
  used,
  limit,
  announce = false,
}: {
  id: string;
  used: number;
  limit: number;
  announce?: boolean;
}) {
  const left = limit - used;
  const near = left <= limit / 10;
  return (
    <p
      id={id}
      className={`characters-left${left < 0 ? " over" : ""}`}
      aria-live={announce || near ? "polite" : "off"}
      data-testid="characters-left"
    >
      {left >= 0
        ? `${left.toLocaleString("en")} character${left === 1 ? "" : "s"} left`
        : `${(-left).toLocaleString("en")} character${left === -1 ? "" : "s"} too many: shorten it to send (at most ${limit.toLocaleString("en")})`}
    </p>
  );
}
