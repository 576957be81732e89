import { callHermes } from "~/server/hermes-door";
import type { RouterInputs } from "~/trpc/types";

export const dynamic = "force-dynamic";

type Steer = RouterInputs["panel"]["hermes"]["steer"];

/** Add to what Hermes is doing in a live run (`panel.hermes.steer`, Hermes 0.21): body {input}. */
export async function POST(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  // The procedure parses the body: what is not its input is refused there.
  return callHermes(req, (hermes, body) => hermes.steer({ ...body, runId } as Steer));
}
