import { mnoteRouter } from "./routers/mnote";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  mnote: mnoteRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
