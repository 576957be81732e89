import { HermesRefused, STEER_UNSUPPORTED } from "@mnote/hermes-runs";
import { AppError } from "../../app-error";
import { hermesRefusal, requireHermes } from "../../panel/hermes";
import { panelProcedure } from "../../panel/panel-procedure";
import { AskRunRefSchema, checkAskRun } from "./ask-check";
import { AskQuestionSchema } from "./hermes-ask";

export const HermesSteerInput = AskRunRefSchema.extend({ input: AskQuestionSchema });

/** The run is over: the person's words are a new question. */
export const RUN_OVER = "This run is over; ask your words as a new question.";

/** Hermes 0.21 takes words only while a run is running (409 `run_not_accepting_steer`: over, stopping, or waiting for
 * an approval). */
export const STEER_NOT_NOW =
  "Hermes is not taking words into this run right now (it is over, stopping, or waiting for your approval); answer or wait, then ask again.";

/**
 * panel.hermes.steer — add the person's words to what Hermes is doing in a live run (Hermes 0.21). The same person
 * and rights as asking (`panel.ask.check`); an older Hermes, or a run that is over, answers with what to do instead.
 */
export const hermesSteer = panelProcedure
  .input(HermesSteerInput)
  .mutation(async ({ ctx, input }): Promise<{ runId: string }> => {
    const hermes = requireHermes(ctx);
    await checkAskRun(ctx, input);
    try {
      await hermes.client.steer(input.runId, input.input);
      return { runId: input.runId };
    } catch (error) {
      if (
        error instanceof HermesRefused &&
        (error.status === 404 || error.status === 405) &&
        error.hermesCode !== "run_not_found"
      )
        throw new AppError("mnote_tool_unavailable", STEER_UNSUPPORTED);
      if (error instanceof HermesRefused && error.status === 409 && error.hermesCode === "run_not_accepting_steer")
        throw new AppError("mnote_tool_conflict", STEER_NOT_NOW);
      if (error instanceof HermesRefused && (error.status === 409 || error.status === 404))
        throw new AppError("mnote_tool_conflict", RUN_OVER);
      throw hermesRefusal(ctx, error);
    }
  });
