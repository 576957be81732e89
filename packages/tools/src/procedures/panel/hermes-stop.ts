import { hermesRefusal, requireHermes } from "../../panel/hermes";
import { panelProcedure } from "../../panel/panel-procedure";
import { AskRunRefSchema, checkAskRun } from "./ask-check";

/** `ended`: the run is over, or Hermes no longer runs it (a restart: 0.21's 409 `run_not_active`). */
export interface StopAnswer {
  runId: string;
  status: "stopping" | "ended";
}

/**
 * panel.hermes.stop — stop the run (Hermes interrupts the agent; the stream ends with `cancelled`). A run already
 * over, one Hermes no longer knows, and (0.21) one its process no longer runs are all `ended`: a clear answer, not a
 * gateway failure.
 */
export const hermesStop = panelProcedure
  .input(AskRunRefSchema)
  .mutation(async ({ ctx, input }): Promise<StopAnswer> => {
    const hermes = requireHermes(ctx);
    await checkAskRun(ctx, input);
    try {
      const { status } = await hermes.client.stop(input.runId);
      return { runId: input.runId, status: status === "stopping" ? "stopping" : "ended" };
    } catch (error) {
      throw hermesRefusal(ctx, error);
    }
  });
