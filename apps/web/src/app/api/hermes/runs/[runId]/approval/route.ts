import { answerApproval } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** Answer Hermes's approval request: body {choice: once|session|always|deny}. */
export async function POST(req: Request, { params }: { params: Promise<{ runId: string }> }) {
  return answerApproval(req, (await params).runId);
}
