import { callHermes } from "~/server/hermes-door";
import type { RouterInputs } from "~/trpc/types";

export const dynamic = "force-dynamic";

type Ask = RouterInputs["panel"]["hermes"]["ask"];

/** Ask Hermes about a page (`panel.hermes.ask`): body {workspaceId, documentId, input, sessionId?} → 202 {runId, sessionId, revision}. */
export function POST(req: Request) {
  // The procedure parses the body: what is not its input is refused there.
  return callHermes(req, (hermes, body) => hermes.ask(body as Ask), 202);
}
