import { HERMES_NOT_CONFIGURED } from "@mnote/hermes-runs";
import { appErrors } from "../../panel/app-errors";
import { publicProcedure } from "../../trpc";

/** May this panel ask Hermes now: only whether and why not (never Hermes's URL or key). */
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
  if (!ctx.hermes) return { connected: false, help: HERMES_NOT_CONFIGURED } satisfies HermesConnectionAnswer;
  const { connected, help } = await ctx.hermes.readiness();
  return { connected, help } satisfies HermesConnectionAnswer;
});
