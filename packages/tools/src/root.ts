import { mnoteRouter } from "./routers/mnote";
import { panelRouter } from "./routers/panel";
import { createCallerFactory, router } from "./trpc";

/** Every procedure the panel's `/api/trpc` serves; the OAuth endpoints have their own router (routers/oauth.ts). */
export const appRouter = router({
  mnote: mnoteRouter,
  panel: panelRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
