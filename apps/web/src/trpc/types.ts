import type { AppRouter } from "@mnote/tools";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

/**
 * What every panel procedure takes and answers, read from the router itself (create-t3-turbo's `RouterInputs` /
 * `RouterOutputs`): a view names `RouterOutputs["panel"]["audit"]["list"]` instead of restating a shape that drifts.
 */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** A page as the panel names it: the ids every page procedure takes. */
export type PageRef = Pick<RouterInputs["panel"]["page"]["view"], "workspaceId" | "documentId">;

/** The signed-in person (`panel.session.me`). */
export type Me = RouterOutputs["panel"]["session"]["me"];

/** What a decision on a proposal answers: the output envelope of the tool it ran. */
export type DecisionAnswer = RouterOutputs["panel"]["proposals"]["approve"];
