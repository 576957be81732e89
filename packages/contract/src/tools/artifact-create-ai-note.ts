import { z } from "zod";
import { LIMITS } from "../limits";
import { storable } from "../text";
import { BaseRevisionSchema, defineTool } from "./shared";

export const artifactCreateAiNoteTool = defineTool({
  name: "mnote.artifact.create_ai_note",
  kind: "write",
  capability: "artifact.write",
  commandName: "artifact.aiNote.create",
  description:
    "Attach a new AI note to the page (an artifact with a reference edge). Each call with a new idempotencyKey adds one note.",
  args: z.strictObject({
    content: storable(z.string())
      .trim()
      .min(1, "content must not be empty")
      .max(LIMITS.aiNoteLength, `content is longer than ${LIMITS.aiNoteLength} characters`),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({ commandName: z.literal("artifact.aiNote.create"), nodeId: z.string(), edgeId: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
