/**
 * Next runs `register` once when the panel's server starts: the configuration is checked here, so a bad value
 * (MNOTE_IDEMPOTENCY_TTL_HOURS=abc, MNOTE_SECURE_COOKIES=yes) stops the panel with a message naming every bad
 * variable, instead of failing requests later. Then the run sweep starts (run-sweep.ts): a run's lines leave the
 * database on this schedule, whether or not anyone asks Hermes again.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { ConfigError } = await import("@mnote/process");
  const { readPanelEnv } = await import("./server/env");
  try {
    readPanelEnv(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`[panel] ${error.message}`);
    process.exit(2);
  }
  const { startRunSweep } = await import("./server/run-sweep");
  startRunSweep();
}
