import { BlockSchema, type Block, type Change, LIMITS, storable } from "@mnote/contract";
import type { ChangeAnchor, ConflictReason } from "@mnote/diff";
import { z } from "zod";
import { ProposalRefSchema } from "../../panel/panel-procedure";

/**
 * A proposal's changes, each decided on its own (decision 0030): the shapes the panel reads and sends. The
 * merge itself is `@mnote/diff`'s `mergeChanges`; what a change's state is and what a person may do with it is
 * decided here, on the server.
 */

/** The most a reason may hold: what the agent reads back (issue 22); the same limit as a whole rejection's. */
export const REASON_MAX = LIMITS.rejectionReasonLength;

/**
 * Where one change stands. `conflict` is a pending change whose anchor moved since the proposal's base
 * (computed on every read, never stored); the others are stored decisions.
 */
export type ChangeState = "pending" | "conflict" | "applied" | "applied_with_edits" | "rejected";

/**
 * What a person may do with one change:
 * - `accept`: apply it as proposed (a current change);
 * - `reject`: leave it out (with a reason the agent reads);
 * - `keep_mine`: a conflict, resolved by keeping the page as it is now (recorded as rejected, reason said so);
 * - `take_agents`: a conflict, resolved by applying the agent's version over the page's newer one;
 * - `edit`: apply the person's own version of the block it inserts or changes (`block`, same id).
 */
export const CHANGE_CHOICES = ["accept", "reject", "keep_mine", "take_agents", "edit"] as const;
export type ChangeChoice = (typeof CHANGE_CHOICES)[number];

/** One person's decision on one change, by its index in the proposal's `preview.changes`. */
export const ChangeDecisionSchema = z
  .strictObject({
    index: z.number().int().min(0),
    choice: z.enum(CHANGE_CHOICES),
    /** `edit` only: the person's version of the block (the contract's BlockSchema, so its limits name the field). */
    block: BlockSchema.optional(),
    /** `reject` / `keep_mine`: why, for the agent (quoted to it as data). */
    reason: storable(z.string()).trim().max(REASON_MAX, `reason: at most ${REASON_MAX} characters`).optional(),
  })
  .refine((d) => (d.choice === "edit") === (d.block !== undefined), {
    message: "block: give the edited block with choice `edit`, and only then",
    path: ["block"],
  });
export type ChangeDecision = z.infer<typeof ChangeDecisionSchema>;

/**
 * `panel.proposals.decide`: any number of decisions on one proposal, applied in one step (one write for the changes
 * applied, the left-out ones recorded with it, in one kernel transaction). Each index at most once.
 */
export const ProposalsDecideInput = ProposalRefSchema.extend({
  decisions: z
    .array(ChangeDecisionSchema)
    .min(1, "decide at least one change")
    .max(10_000)
    .refine((list) => new Set(list.map((d) => d.index)).size === list.length, {
      message: "decisions: each change at most once",
    }),
});
export type ProposalsDecideInputType = z.infer<typeof ProposalsDecideInput>;

/** A stored decision on one change, as the panel shows it and the agent hears it. */
export interface ChangeDecisionRecord {
  state: "applied" | "applied_with_edits" | "rejected";
  /** Who decided, by id and name. */
  by: { actorId: string; actorName: string | null };
  at: string;
  /** The write that applied it (null for a rejection). */
  commandId: string | null;
  /** Rejected: the reason given; `keep_mine` says "kept the page's version". */
  reason: string | null;
  /** Applied with edits: the block as the person wrote it (what the page holds). */
  final: Block | null;
}

/** One change of a proposal, as `panel.proposals.get` answers it. */
export interface ProposalChange {
  /** Its index in the proposal's `preview.changes`: how decisions name it. */
  index: number;
  anchor: ChangeAnchor;
  state: ChangeState;
  /** The change as proposed, computed on the proposal's base (its `before` is the merge base). */
  proposed: Change;
  /** A conflict: why, and the page's version now (a block, null when deleted; the title; an option's value). */
  conflict: { reason: ConflictReason; current: Block | string | boolean | null } | null;
  /** Decided: who, when, which write, why, and the final block of an edit. */
  decision: ChangeDecisionRecord | null;
  /** What the signed-in person may do with it now (empty once decided or for a viewer). */
  choices: ChangeChoice[];
  /** In words, for the trail and the agent: "insert 'Alpha line' after 'Rollout'". */
  description: string;
  /** An insert or a move: where the block goes, in words ("after 'Rollout'"); empty for other changes. */
  where: string;
}

/** How many of a proposal's changes stand where: what the list shows instead of the old `stale`. */
export interface ChangeCounts {
  pending: number;
  /** Null in the list (counting needs the changes themselves); counted by `panel.proposals.get`. */
  conflict: number | null;
  applied: number;
  rejected: number;
}
