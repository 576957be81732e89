import { startRun } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** Ask Hermes about a page: body {workspaceId, documentId, input, sessionId?} → 202 {runId, sessionId, revision}. */
export function POST(req: Request) {
  return startRun(req);
}
