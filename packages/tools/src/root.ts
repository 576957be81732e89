import { mnoteRouter } from "./routers/mnote";
import { panelRouter } from "./routers/panel";
import { oauthRouter } from "./routers/oauth";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  mnote: mnoteRouter,
  panel: panelRouter,
  oauth: oauthRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
