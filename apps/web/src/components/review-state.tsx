"use client";

import type { Block } from "@mnote/contract";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";

/** A change of a proposal: its index in the proposal's `preview.changes`. */
export interface ChangeRef {
  proposalId: number;
  change: number;
}

/**
 * What a person is doing with the proposals of one page, shared by the review list and the page view so the
 * two stay in step (issue 22): which proposal the page shows as suggestions, which changes are left out, the
 * person's edits to proposed blocks, the change in focus and the one being edited. What they may do is still
 * the server's answer on each proposal (`decidable`, `partiallyApplicable`); this is only the person's draft.
 */
export interface ReviewState {
  /** The proposal the page shows; null until the person picks one (then the newest pending is shown). */
  chosen: number | null;
  choose: (proposalId: number | null) => void;
  leftOut: (proposalId: number) => ReadonlySet<number>;
  /** Leave a change out (`out` true) or keep it; without `out`, flip it. */
  setLeftOut: (ref: ChangeRef, out?: boolean) => void;
  setAllLeftOut: (proposalId: number, changes: readonly number[]) => void;
  edits: (proposalId: number) => ReadonlyMap<string, Block>;
  /** The person's version of a proposed block; null drops the edit (back to the agent's version). */
  setEdit: (proposalId: number, blockId: string, block: Block | null) => void;
  current: ChangeRef | null;
  /** Focus a change; `from` says who asked, so the other view follows it (both follow the keyboard). */
  setCurrent: (ref: ChangeRef | null, from: FocusSource) => void;
  currentFrom: FocusSource;
  editing: ChangeRef | null;
  setEditing: (ref: ChangeRef | null) => void;
  /** A proposal whose reject form should open (asked from the page or the keyboard). */
  rejecting: number | null;
  setRejecting: (proposalId: number | null) => void;
}

export type FocusSource = "list" | "page" | "keys";

const NONE: ReadonlySet<number> = new Set();
const NO_EDITS: ReadonlyMap<string, Block> = new Map();

const ReviewContext = createContext<ReviewState | null>(null);

export function ReviewProvider({ children }: { children: ReactNode }) {
  const [chosen, choose] = useState<number | null>(null);
  const [left, setLeft] = useState<ReadonlyMap<number, ReadonlySet<number>>>(new Map());
  const [edited, setEdited] = useState<ReadonlyMap<number, ReadonlyMap<string, Block>>>(new Map());
  const [current, setCurrentRef] = useState<ChangeRef | null>(null);
  const [currentFrom, setCurrentFrom] = useState<FocusSource>("list");
  const [editing, setEditing] = useState<ChangeRef | null>(null);
  const [rejecting, setRejecting] = useState<number | null>(null);

  const leftOut = useCallback((proposalId: number) => left.get(proposalId) ?? NONE, [left]);
  const setLeftOut = useCallback((ref: ChangeRef, out?: boolean) => {
    setLeft((all) => {
      const next = new Set(all.get(ref.proposalId) ?? NONE);
      if (out ?? !next.has(ref.change)) next.add(ref.change);
      else next.delete(ref.change);
      return new Map(all).set(ref.proposalId, next);
    });
  }, []);
  const setAllLeftOut = useCallback((proposalId: number, changes: readonly number[]) => {
    setLeft((all) => new Map(all).set(proposalId, new Set(changes)));
  }, []);
  const edits = useCallback((proposalId: number) => edited.get(proposalId) ?? NO_EDITS, [edited]);
  const setEdit = useCallback((proposalId: number, blockId: string, block: Block | null) => {
    setEdited((all) => {
      const next = new Map(all.get(proposalId) ?? NO_EDITS);
      if (block) next.set(blockId, block);
      else next.delete(blockId);
      return new Map(all).set(proposalId, next);
    });
  }, []);
  const setCurrent = useCallback((ref: ChangeRef | null, from: FocusSource) => {
    setCurrentFrom(from);
    setCurrentRef((was) => (was?.proposalId === ref?.proposalId && was?.change === ref?.change ? was : ref));
  }, []);

  const value = useMemo<ReviewState>(
    () => ({
      chosen,
      choose,
      leftOut,
      setLeftOut,
      setAllLeftOut,
      edits,
      setEdit,
      current,
      setCurrent,
      currentFrom,
      editing,
      setEditing,
      rejecting,
      setRejecting,
    }),
    [chosen, leftOut, setLeftOut, setAllLeftOut, edits, setEdit, current, setCurrent, currentFrom, editing, rejecting],
  );
  return <ReviewContext.Provider value={value}>{children}</ReviewContext.Provider>;
}

/** The page's review state; outside a page screen (a test rendering one card) a private one. */
export function useReview(): ReviewState {
  const state = useContext(ReviewContext);
  if (!state) throw new Error("useReview outside ReviewProvider");
  return state;
}

/**
 * The proposal the page shows as suggestions: the one the person picked while it is pending, else the newest
 * pending. The panel marks the same one (issue 32 item 7), so what is decided in the page is never ambiguous.
 */
export function useShownProposal<P extends { id: number; status: string }>(
  proposals: readonly P[] | undefined,
): P | null {
  const review = useReview();
  const pending = proposals?.filter((p) => p.status === "pending") ?? [];
  if (review.chosen === 0) return null;
  return pending.find((p) => p.id === review.chosen) ?? pending[0] ?? null;
}
