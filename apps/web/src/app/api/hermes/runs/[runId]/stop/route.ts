import { stopRun } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** Stop the run. */
export async function POST(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  return stopRun(req, (await params).runId);
}
