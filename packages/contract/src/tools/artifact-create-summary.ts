import { z } from "zod";
import { LIMITS } from "../limits";
import { storable } from "../text";
import { BaseRevisionSchema, defineTool } from "./shared";

export const artifactCreateSummaryTool = defineTool({
  name: "mnote.artifact.create_summary",
  kind: "write",
  capability: "artifact.write",
  commandName: "artifact.summary.upsert",
  description:
    "Create or update the page's one summary (an artifact linked to the page by a reference edge). Does not change the page body.",
  args: z.strictObject({
    summary: storable(z.string())
      .trim()
      .min(1, "summary must not be empty")
      .max(LIMITS.summaryLength, `summary is longer than ${LIMITS.summaryLength} characters`),
    baseRevision: BaseRevisionSchema,
  }),
  result: z.object({
    commandName: z.literal("artifact.summary.upsert"),
    nodeId: z.string(),
    edgeId: z.string(),
    created: z.boolean(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
