import { INTERRUPTED_MESSAGE, type RunLine } from "./client";

/**
 * The end-of-run rule, written once (issue 33 item 3): which lines end a run and how it ended. The pump counts
 * a run's outcome with it, a reader that comes back to an ended run is told the end with it, the browser stops
 * reading with it and `reduceRun` sets the run's phase with it.
 */
export type RunOutcome = "completed" | "failed" | "cancelled" | "lost";

export interface RunEnd {
  outcome: RunOutcome;
  /** Hermes's error text (failed), Hermes's word on a run it reports in another state, or the panel's `lost` text. */
  error: string | null;
}

const OUTCOMES: readonly string[] = ["completed", "failed", "cancelled"] satisfies RunOutcome[];

/** How the run ended, if this line ends it (null: the run goes on, or Hermes only closed its stream). */
export function runEnd(line: RunLine): RunEnd | null {
  switch (line.type) {
    case "completed":
      return { outcome: "completed", error: null };
    case "failed":
      return { outcome: "failed", error: line.message };
    case "cancelled":
      return { outcome: "cancelled", error: null };
    case "lost":
      return { outcome: "lost", error: line.message };
    case "interrupted":
      // Hermes 0.21: orphaned by a restart; it will not go on (the box must not say "running" until a reload).
      return { outcome: "lost", error: line.message };
    case "status":
      // Hermes's word on a run whose events the panel no longer has: anything but an end is a run lost to us.
      if (line.status === "interrupted") return { outcome: "lost", error: line.error ?? INTERRUPTED_MESSAGE };
      return OUTCOMES.includes(line.status)
        ? { outcome: line.status as RunOutcome, error: line.error }
        : { outcome: "lost", error: line.error };
    default:
      return null;
  }
}

/** A reader stops after this line: the run ended, or Hermes has nothing more to say (`: stream closed`). */
export const endsRun = (line: RunLine): boolean => line.type === "closed" || runEnd(line) !== null;

/** The line that tells a reader who comes back after the end how the run ended (never its text again). */
export function endLine(end: RunEnd): RunLine {
  return end.outcome === "lost"
    ? { type: "lost", message: end.error ?? LOST_MESSAGE }
    : { type: "status", status: end.outcome, error: end.error };
}

/** What a reader is told when Hermes went away mid-run (the run may go on there). */
export const LOST_MESSAGE =
  "The connection to Hermes was lost; the run may go on in Hermes. Its tool calls show below from the audit trail.";
