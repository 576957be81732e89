"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";

/** What to ask before an action that cannot be taken back with one click. */
export interface Confirmation {
  /** The question, as the dialog's accessible name: "Remove Ben from Demo workspace?" */
  title: string;
  /** What happens, in a sentence or two: the dialog's accessible description. */
  body: ReactNode;
  /** The confirming button's words, naming the act ("Remove Ben"), never just "OK". */
  confirm: string;
  onConfirm: () => void;
}

/**
 * A modal question before a consequential action (remove a member, revoke a token, stop holding agent edits). The
 * browser's own `<dialog>` shown with `showModal()`: it traps focus, closes on Escape, hides the page from assistive
 * technology, and returns focus to the button that opened it. Focus starts on Cancel, so Enter never confirms by
 * accident.
 */
export function ConfirmDialog({ ask, onClose }: { ask: Confirmation | null; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (ask && !element.open) element.showModal();
    if (!ask && element.open) element.close();
  }, [ask]);
  return (
    <dialog
      ref={dialog}
      className="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      // Escape, or closing by any other way, is a "no".
      onClose={onClose}
    >
      {ask && (
        <>
          <h2 id="confirm-title">{ask.title}</h2>
          <div id="confirm-body">{ask.body}</div>
          <p className="row end">
            <button type="button" autoFocus onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button
              type="button"
              className="danger"
              onClick={() => {
                ask.onConfirm();
                dialog.current?.close();
              }}
            >
              {ask.confirm}
            </button>
          </p>
        </>
      )}
    </dialog>
  );
}

/** The question one screen may be asking: `ask(…)` opens the dialog, `dialog` is the element to render. */
export function useConfirmation() {
  const [asking, setAsking] = useState<Confirmation | null>(null);
  return {
    ask: setAsking,
    dialog: <ConfirmDialog ask={asking} onClose={() => setAsking(null)} />,
  };
}
