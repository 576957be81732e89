import { optional, required, UsageError } from "../args";
import type { Command } from "../command";

/**
 * Operator views. They act as the database owner and print what the tools never
 * would (other users' calls, artifact contents), so they are not reachable from the bridge.
 */
export const inspectCommands: Command[] = [
  {
    words: ["audit"],
    usage: "mnote audit --document ID | --workspace ID [--run RUN_ID] [--trace TRACE_ID] [--limit N]",
    help: "The audit records of a page (newest first), or of a workspace's operator changes with --workspace; filter by run or trace.",
    async run({ args, kernel }) {
      const limit = optional(args, "limit");
      const documentId = optional(args, "document");
      const workspaceId = optional(args, "workspace");
      if ((documentId === undefined) === (workspaceId === undefined))
        throw new UsageError("give exactly one of --document or --workspace");
      const records = await (
        await kernel()
      ).listAudit({
        documentId,
        workspaceId,
        runId: optional(args, "run"),
        traceId: optional(args, "trace"),
        limit: limit ? Number(limit) : undefined,
      });
      return { output: records };
    },
  },
  {
    words: ["artifacts"],
    usage: "mnote artifacts --document ID",
    help: "A page's summary and AI notes with their reference edges (operator view: prints their contents).",
    async run({ args, kernel }) {
      return { output: await (await kernel()).listArtifacts(required(args, "document")) };
    },
  },
  {
    words: ["command", "show"],
    usage: "mnote command show COMMAND_ID",
    help: "The kernel command behind an audit record's commandId: name, identity, revisions.",
    async run({ args, kernel }) {
      const id = args.positionals[0];
      if (!id) throw new UsageError("a command id is required");
      const command = await (await kernel()).getCommand(id);
      if (!command) return { output: { error: `no command ${id}` }, exitCode: 1 };
      return { output: command };
    },
  },
];
