import { type RunSweepSchedule, scheduleRunSweep } from "@mnote/hermes-runs";
import { panelEnv } from "./env";
import { getKernel } from "./open-kernel";

const shared = globalThis as { __mnoteRunSweep?: RunSweepSchedule };

/**
 * Starts this panel process's run sweep (issue 38, decision 0031): at start-up, then every 15 s, the lines of
 * runs nobody can follow any more leave the database (an ended run's after MNOTE_ASK_LINES_GRACE_SECONDS), and
 * the records of runs Hermes no longer knows. Every panel process runs its own; the sweep is idempotent.
 * Logs counts only, never what a run said.
 */
export function startRunSweep(): RunSweepSchedule {
  shared.__mnoteRunSweep ??= scheduleRunSweep({
    sweep: async () => (await getKernel()).ask.sweepRuns({ graceMs: panelEnv().askLinesGraceMs }),
    swept: (removed) => console.info("[panel] run sweep", removed),
    failed: (error) =>
      console.error("[panel] run sweep failed", { errorType: error instanceof Error ? error.name : typeof error }),
  });
  return shared.__mnoteRunSweep;
}
