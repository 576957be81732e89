import { storable } from "@mnote/contract";
import { HermesRefused, RELAYED_CHOICES, type RelayedChoice } from "@mnote/hermes-runs";
import { z } from "zod";
import { AppError } from "../../app-error";
import { hermesRefusal, requireHermes } from "../../panel/hermes";
import { panelProcedure } from "../../panel/panel-procedure";
import { AskRunRefSchema, checkAskRun } from "./ask-check";

/** Only these are relayed: `session`/`always` would change Hermes for every later run. */
export const HermesApproveInput = AskRunRefSchema.extend({
  choice: z.enum(RELAYED_CHOICES),
  /** Hermes 0.21's name of the request answered (from its `approval.request`), handed back as `request_id`. */
  requestId: storable(z.string())
    .regex(/^[\w.:-]{1,128}$/)
    .optional(),
});

/** Hermes is not waiting for an answer (it was answered, the run moved on or ended). */
export const NOT_WAITING = "Hermes is not waiting for an approval on this run any more.";

/**
 * panel.hermes.approve — the person's answer to an approval request the panel relayed (the run's own asker, who may
 * still write its page: `panel.ask.check`). Approval requests not for an mnote tool never reach the person: the
 * pump denies them on the server.
 */
export const hermesApprove = panelProcedure
  .input(HermesApproveInput)
  .mutation(async ({ ctx, input }): Promise<{ runId: string; choice: RelayedChoice }> => {
    const hermes = requireHermes(ctx);
    await checkAskRun(ctx, input);
    try {
      await hermes.client.answerApproval(input.runId, input.choice, input.requestId);
      return { runId: input.runId, choice: input.choice };
    } catch (error) {
      if (error instanceof HermesRefused && error.status === 409)
        throw new AppError("mnote_tool_conflict", NOT_WAITING);
      throw hermesRefusal(ctx, error);
    }
  });
