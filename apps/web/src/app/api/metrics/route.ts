import { metricsAnswer, observeKernel } from "@mnote/process";
import { panelEnv } from "~/server/env";
import { getKernel } from "~/server/kernel";

export const dynamic = "force-dynamic";

/**
 * `GET /api/metrics`: the panel process's Prometheus metrics, only for `Authorization: Bearer $MNOTE_METRICS_TOKEN`
 * (404 while it is unset). The database-backed gauges are read when scraped (docs/operations.md).
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
  const answer = await metricsAnswer(token, req.headers.get("authorization"));
  return new Response(answer.body, {
    status: answer.status,
    headers: { "content-type": answer.contentType, "cache-control": "no-store", ...answer.headers },
  });
}
