"use client";

import { reviewRows } from "@mnote/diff";
import { useEffect, useMemo, useRef, useState } from "react";
import { OutcomeText, type ProposalItem, useDecisions, useProposalDetail } from "./proposals";
import { useReview } from "./review-state";

/** The review's keyboard shortcuts, as the `?` overlay lists them (issue 22 item 4). */
export const SHORTCUTS: readonly { keys: string; what: string }[] = [
  { keys: "j or n", what: "Next change" },
  { keys: "k or p", what: "Previous change" },
  { keys: "a", what: "Accept the focused change (applies it now)" },
  { keys: "x", what: "Reject the focused change (leaves it out now)" },
  { keys: "e", what: "Edit the focused inserted or changed block, then apply your version" },
  { keys: "Shift + A", what: "Apply the undecided changes (those ticked in the panel, with your edits)" },
  { keys: "r", what: "Reject the whole proposal (with a reason)" },
  { keys: "?", what: "Show or hide these shortcuts" },
  { keys: "Esc", what: "Close this list, or cancel an edit" },
];

/** Typing goes where the person types: no shortcut fires in a text field, a select or an editable element. */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** Focus a change in the page once its row is drawn (the page is virtualized: it may take a frame or two). */
function focusInPage(change: number) {
  const focus = (tries: number) =>
    requestAnimationFrame(() => {
      const element = document.querySelector<HTMLElement>(`[data-testid="in-page-review"] [data-change="${change}"]`);
      if (element) element.focus({ preventScroll: true });
      else if (tries > 0) focus(tries - 1);
    });
  focus(8);
}

/**
 * Keyboard review of the proposal shown in the page: next / previous change, accept / reject the focused
 * change, edit it, apply, reject all — plus the `?` overlay that documents them, and a button that opens it.
 */
export function ReviewShortcuts({
  proposal,
  pageRef,
}: {
  proposal: ProposalItem | null;
  pageRef: { workspaceId: string; documentId: string };
}) {
  const [open, setOpen] = useState(false);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open) closeRef.current?.focus();
  }, [open]);
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Escape") setOpen(false);
      else if (event.key === "?" && !typingIn(event.target)) {
        event.preventDefault();
        setOpen((o) => !o);
      }
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
  return (
    <>
      <button type="button" className="link small" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Keyboard shortcuts (?)
      </button>
      {proposal && <ProposalKeys key={proposal.id} proposal={proposal} pageRef={pageRef} />}
      {open && (
        <div className="overlay" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title">
          <div className="overlay-box">
            <h2 id="shortcuts-title">Keyboard shortcuts</h2>
            <p className="muted">For the proposal shown in the page. They never fire while you type in a field.</p>
            <table className="shortcuts">
              <tbody>
                {SHORTCUTS.map((s) => (
                  <tr key={s.keys}>
                    <th scope="row">
                      <kbd>{s.keys}</kbd>
                    </th>
                    <td>{s.what}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <button ref={closeRef} type="button" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        </div>
      )}
    </>
  );
}

/** The review keys for one proposal: a document-wide listener that stands back while the person types. */
function ProposalKeys({
  proposal,
  pageRef,
}: {
  proposal: ProposalItem;
  pageRef: { workspaceId: string; documentId: string };
}) {
  const review = useReview();
  const detail = useProposalDetail(proposal, pageRef, true);
  const decisions = useDecisions(proposal, pageRef, () => undefined);
  const changes = detail.data?.preview.changes;
  const states = detail.data?.changes;
  // The changes still to decide, in page order: a decided one has left the page's suggestions, so j / k skip it
  // (stepping onto one moved the focus nowhere and sent the next keys astray; issue 36).
  const order = useMemo(() => {
    if (!changes) return [];
    const open = (change: number) => ["pending", "conflict"].includes(states?.[change]?.state ?? "pending");
    return reviewRows(changes).flatMap((row) => (row.row === "change" && open(row.change) ? [row.change] : []));
  }, [changes, states]);
  // Handlers read the newest state through a ref: one listener for the page's lifetime.
  const latest = useRef<(event: KeyboardEvent) => void>(() => undefined);
  latest.current = (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
    if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
    if (!changes || proposal.status !== "pending") return;
    const at = review.current?.proposalId === proposal.id ? order.indexOf(review.current.change) : -1;
    const focused = at >= 0 ? order[at]! : null;
    const step = (to: number) => {
      const change = order[Math.max(0, Math.min(to, order.length - 1))];
      if (change === undefined) return;
      review.setCurrent({ proposalId: proposal.id, change }, "keys");
      focusInPage(change);
    };
    const may = proposal.decidable;
    let handled = true;
    switch (event.key) {
      case "j":
      case "n":
        step(at + 1);
        break;
      case "k":
      case "p":
        step(at - 1);
        break;
      case "a":
      case "x": {
        // One decision on the focused change, as its button in the page (decision 0030), when the server offers it.
        const choice = event.key === "a" ? "accept" : "reject";
        const change = focused === null ? undefined : detail.data?.changes[focused];
        if (may && change?.choices.includes(choice)) decisions.decide([{ index: change.index, choice }]);
        break;
      }
      case "e": {
        const kind = focused === null ? null : changes[focused]?.kind;
        if (proposal.editable && (kind === "insert" || kind === "update"))
          review.setEditing({ proposalId: proposal.id, change: focused! });
        break;
      }
      case "A":
        if (may) decisions.apply(detail.data!.changes.flatMap((c) => (c.state === "pending" ? [c.index] : [])));
        break;
      case "r":
        if (proposal.decidable) review.setRejecting(proposal.id);
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  };
  useEffect(() => {
    const listener = (event: KeyboardEvent) => latest.current(event);
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
  if (!decisions.outcome) return null;
  return (
    <p role={decisions.outcome.tone === "error" ? "alert" : "status"} className={`notice ${decisions.outcome.tone}`}>
      <OutcomeText outcome={decisions.outcome} />
    </p>
  );
}
