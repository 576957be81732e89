/**
 * The most procedures one `/api/trpc` request may call. The server refuses a bigger batch
 * (tRPC's `maxBatchSize`); the panel's batch link splits at the same number.
 */
export const PANEL_MAX_BATCH_CALLS = 10;
