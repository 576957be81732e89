/**
 * Hermes's run protocol as the panel speaks it (decision 0019, issue 19): the client of Hermes's API
 * server, its SSE, the panel's run lines, what a run may be offered and which approvals are relayed, and
 * the pure reducer the browser folds a run's lines with. No Next.js here: apps/web holds the views and routes.
 */
export * from "./client";
export * from "./policy";
export * from "./reduce-run";
export * from "./toolsets";
export * from "./match-records";
export * from "./readiness";
export * from "./run-end";
export * from "./pump";
export * from "./follow";
export * from "./run-sweep";
export * from "./start-run";
export * from "./panel-hermes";
