import { callHermes } from "~/server/hermes-door";
import type { RouterInputs } from "~/trpc/types";

export const dynamic = "force-dynamic";

type Approve = RouterInputs["panel"]["hermes"]["approve"];

/** Answer Hermes's approval request (`panel.hermes.approve`): body {choice: once|deny, requestId?}. */
export async function POST(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  // The procedure parses the body: what is not its input is refused there.
  return callHermes(req, (hermes, body) => hermes.approve({ ...body, runId } as Approve));
}
