"use client";

import { useState } from "react";

type Outcome = "copied" | "select" | null;

/**
 * Copies `text` through the Clipboard API, or, where it is missing or refused (a page served over plain HTTP from
 * another host is no secure context), through a selected hidden field and the older copy command. If neither
 * copies, the text is selected for the person to copy. What happened is announced in a polite live region, so a
 * screen reader hears "Copied" without losing its place.
 */
export async function copyText(text: string): Promise<Exclude<Outcome, null>> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return "copied";
    }
  } catch {
    // Refused (no permission, no focus): the fallback below.
  }
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.append(field);
  field.select();
  let copied: boolean;
  try {
    // Deprecated, but still the only way without the Clipboard API; false (or a throw) when it did not copy.
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  field.remove();
  return copied ? "copied" : "select";
}

/** Selects the text of the element with this id, so the person can copy it themselves. */
function selectElementText(id: string) {
  const element = document.getElementById(id);
  const selection = window.getSelection();
  if (!element || !selection) return;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
}

/**
 * "Copy" beside a secret shown once. `what` names it for the button's accessible name ("Copy the agent token");
 * `selectId`, the element holding the text, is selected when no copy worked.
 */
export function CopyButton({ text, what, selectId }: { text: string; what: string; selectId?: string }) {
  const [outcome, setOutcome] = useState<Outcome>(null);
  return (
    <>
      <button
        type="button"
        aria-label={`Copy ${what}`}
        onClick={() => {
          setOutcome(null);
          void copyText(text).then((result) => {
            if (result === "select" && selectId) selectElementText(selectId);
            setOutcome(result);
          });
        }}
      >
        Copy
      </button>
      <span role="status" aria-live="polite" className="muted" data-testid="copy-status">
        {outcome === "copied" && `Copied ${what} to the clipboard.`}
        {outcome === "select" && `Could not copy: ${what} is selected, press Ctrl+C (⌘C on a Mac) to copy it.`}
      </span>
    </>
  );
}
