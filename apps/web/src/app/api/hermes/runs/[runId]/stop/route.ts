import { callHermes } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** Stop the run (`panel.hermes.stop`). */
export async function POST(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  return callHermes(req, (hermes) => hermes.stop({ runId }));
}
