import { runEvents } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** The run's events as JSON lines (`panel.hermes.events`), while it runs. */
export async function GET(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  return runEvents(req, (await params).runId);
}
