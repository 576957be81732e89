import type { Change, DiffSummaryOp } from "@mnote/contract";

export type SummaryMode = "replace" | "append";

/** Replace summaries list the kinds in this order, whatever order the changes came in. */
const REPLACE_ORDER = ["insert", "delete", "update", "move"] as const;
type CountedKind = (typeof REPLACE_ORDER)[number];

/**
 * The contract's short form of a body diff. An append only ever adds blocks, so it is one
 * `append` entry; a replace gets one entry per block kind that occurred. Non-block kinds
 * (title, options, summary, notes) are summarized by their own tools.
 */
export function summarizeChanges(changes: Change[], mode: SummaryMode): DiffSummaryOp[] {
  const counts = countKinds(changes);
  if (mode === "append") return counts.insert > 0 ? [{ op: "append", blocks: counts.insert }] : [];
  return REPLACE_ORDER.filter((kind) => counts[kind] > 0).map((kind) => ({ op: kind, blocks: counts[kind] }));
}

function countKinds(changes: readonly Change[]): Record<CountedKind, number> {
  const counts: Record<CountedKind, number> = { insert: 0, delete: 0, update: 0, move: 0 };
  for (const { kind } of changes) if (isCounted(kind)) counts[kind]++;
  return counts;
}

function isCounted(kind: Change["kind"]): kind is CountedKind {
  return (REPLACE_ORDER as readonly string[]).includes(kind);
}
