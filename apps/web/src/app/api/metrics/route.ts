import { metricsAnswer, observeKernel } from "@mnote/process";
import { panelEnv } from "~/server/env";
import { getKernel } from "~/server/kernel";
import { FAILED_AUTHENTICATION_KEY } from "~/server/panel-api";
import { panelLimiter } from "~/server/rate-limit";

export const dynamic = "force-dynamic";

/**
 * `GET /api/metrics`: the panel process's Prometheus metrics, only for `Authorization: Bearer $MNOTE_METRICS_TOKEN`
 * (404 while it is unset; 429 once wrong bearers have spent the failed-authentication budget). The database-backed gauges are read when scraped (docs/operations.md).
 */
export async function GET(req: Request): Promise<Response> {
  const token = panelEnv().metricsToken;
  if (token) {
    try {
      observeKernel(await getKernel());
    } catch {
      // The database is down: the process's own metrics still answer (the database's read as missing).
    }
  }
  // A wrong bearer spends the panel's failed-authentication budget, the one made-up session cookies spend.
  const answer = await metricsAnswer(token, req.headers.get("authorization"), () =>
    panelLimiter().take(FAILED_AUTHENTICATION_KEY),
  );
  return new Response(answer.body, {
    status: answer.status,
    headers: { "content-type": answer.contentType, "cache-control": "no-store", ...answer.headers },
  });
}
