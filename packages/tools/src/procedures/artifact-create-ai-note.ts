import { artifactCreateAiNoteTool, type ToolArgs, type ToolInput, type ToolResult } from "@mnote/contract";
import { contractToolSpec } from "../tool-spec";
import { type Planner, writePlan } from "../planning/write-plan";
import { runWrite } from "../run-write";
import { toolProcedure } from "../tool-procedure";

export const artifactCreateAiNoteMeta = contractToolSpec(artifactCreateAiNoteTool.name);

export const planCreateAiNote: Planner = async ({ input, page }) => {
  const { content } = input.args as ToolArgs<"mnote.artifact.create_ai_note">;
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
export const artifactCreateAiNote = toolProcedure<ToolInput<"mnote.artifact.create_ai_note">>(
  artifactCreateAiNoteMeta,
).mutation(({ ctx }) => runWrite<ToolResult<"mnote.artifact.create_ai_note">>(ctx, planCreateAiNote));
