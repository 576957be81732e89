import { steerRun } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** Add to what Hermes is doing in a live run (Hermes 0.21's steer). */
export async function POST(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  return steerRun(req, (await params).runId);
}
