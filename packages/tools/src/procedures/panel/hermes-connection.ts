import { HERMES_NOT_CONFIGURED } from "@mnote/hermes-runs";
import { appErrors } from "../../panel/app-errors";
import { ASK_HERMES_NOT_SET_UP, logOperatorHelp, personHelp } from "../../panel/hermes";
import { publicProcedure } from "../../trpc";

/** May this panel ask Hermes now: only whether and, if not, what the person can do (never Hermes's URL, key or settings: what to change is the
 * operator's, in the panel's log). */
export interface HermesConnectionAnswer {
  connected: boolean;
  help: string | null;
}

/**
 * panel.hermes.connection — whether "Ask Hermes" is connected; the box explains how to connect it when not. The one
 * panel procedure that needs no session: it says nothing of any person or page (the start script asks it before
 * anyone signs in). Hermes's readiness is checked at most every 10 s, however many ask.
 */
export const hermesConnection = publicProcedure.use(appErrors).query(async ({ ctx }) => {
  if (!ctx.hermes) {
    logOperatorHelp(ctx, HERMES_NOT_CONFIGURED);
    return { connected: false, help: ASK_HERMES_NOT_SET_UP } satisfies HermesConnectionAnswer;
  }
  const readiness = await ctx.hermes.readiness();
  return { connected: readiness.connected, help: personHelp(ctx, readiness) } satisfies HermesConnectionAnswer;
});
