import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { AppError, createOperatorCaller, createToolsContext } from "@mnote/tools";
import { optional, required, UsageError } from "../args";
import type { Command } from "../command";

/** Written beside and renamed over: a crash leaves the old cursor or the new one, never half a file. */
function saveCursor(path: string, cursor: string) {
  writeFileSync(`${path}.tmp`, `${cursor}\n`);
  renameSync(`${path}.tmp`, path);
}

export const auditExportCommand: Command = {
  words: ["audit", "export"],
  usage:
    "mnote audit export --since DATE --until DATE [--workspace ID] [--cursor C | --cursor-file PATH] [--page-size N]",
  help:
    "The audit records of [since, until) as newline-delimited JSON on stdout, oldest first (ids only grow: de-duplicate by id). " +
    "Resumable: the summary on stderr names the cursor to continue from, and --cursor-file keeps it for you (read at start, saved after each page).",
  async run({ args, kernel, io }) {
    // The options come from the usage line through node:util's parser (args.ts): an unknown one is a usage error.
    const since = required(args, "since");
    const until = required(args, "until");
    const workspace = optional(args, "workspace");
    const cursorFile = optional(args, "cursor-file");
    if (optional(args, "cursor") !== undefined && cursorFile !== undefined)
      throw new UsageError("give --cursor or --cursor-file, not both");
    const size = optional(args, "page-size");
    const pageSize = size === undefined ? 1000 : Number(size);
    let cursor =
      optional(args, "cursor") ??
      (cursorFile && existsSync(cursorFile) ? readFileSync(cursorFile, "utf8").trim() : undefined);
    // The operator router, in process: the CLI reads the trail the way every door does, through the router.
    const caller = createOperatorCaller(createToolsContext({ kernel: await kernel() }));
    let exported = 0;
    try {
      for (;;) {
        const page = await caller.audit.export({
          since,
          until,
          workspaceId: workspace,
          cursor: cursor || undefined,
          limit: pageSize,
        });
        if (page.records.length > 0) {
          io.stdout(page.records.map((record) => `${JSON.stringify(record)}\n`).join(""));
          exported += page.records.length;
          cursor = String(page.records.at(-1)!.id);
          if (cursorFile) saveCursor(cursorFile, cursor);
        }
        if (page.cursor === null) break;
      }
    } catch (error) {
      // A refused input (a bad date, a range the wrong way round) is the operator's usage error, said as the router said it.
      const appError = AppError.from(error);
      if (appError.code === "mnote_tool_invalid_input") throw new UsageError(appError.message);
      throw error;
    }
    io.stderr(`${JSON.stringify({ exported, cursor: cursor ?? null })}\n`);
    // The records are the output; nothing else goes to stdout.
    return { output: undefined };
  },
};
