"use client";

import { useState } from "react";

/** An id a person rarely reads but sometimes needs (a run, a call, a trace): shown small, copied on click. */
export function CopyableId({
  label,
  value,
  title,
}: {
  label: string;
  value: string | null | undefined;
  title?: string;
}) {
  const [copied, setCopied] = useState(false);
  if (!value) return null;
  return (
    <span className="copyable-id">
      {label} <code title={title ?? label}>{value}</code>
      <button
        type="button"
        className="link copy"
        aria-label={`Copy ${label} id ${value}`}
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {copied ? "copied" : "copy"}
      </button>
    </span>
  );
}
