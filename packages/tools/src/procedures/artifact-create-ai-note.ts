import type { ToolArgs } from "@mnote/contract";
import { type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const planCreateAiNote: Planner<ToolArgs<"mnote.artifact.create_ai_note">> = async ({ input, page }) => {
  const { content } = input.args;
  return writePlan(
    page,
    { name: "artifact.aiNote.create", content },
    {
      plan: ["create an ai_note node", "create a reference edge page → ai_note"],
      diff: [{ op: "create_ai_note" }],
      changes: [{ kind: "add_ai_note", content }],
    },
  );
};

/** mnote.artifact.create_ai_note — a new AI note on the page, one per idempotency key. */
export const artifactCreateAiNote = toolProcedure("mnote.artifact.create_ai_note").mutation((call, ctx) =>
  runWrite(ctx, call, planCreateAiNote),
);
