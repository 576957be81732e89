import { optional, required, UsageError } from "../args";
import type { Command } from "../command";

/**
 * Operator views. They act as the database owner and print what the tools never
 * would (other users' calls, artifact contents), so they are not reachable from the bridge.
 */
export const inspectCommands: Command[] = [
  {
    words: ["audit"],
    usage: "mnote audit --document ID [--run RUN_ID] [--trace TRACE_ID] [--limit N]",
    async run({ args, kernel }) {
      const limit = optional(args, "limit");
      const records = await (await kernel()).listAudit({
        documentId: required(args, "document"),
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
    async run({ args, kernel }) {
      return { output: await (await kernel()).listArtifacts(required(args, "document")) };
    },
  },
  {
    words: ["command", "show"],
    usage: "mnote command show COMMAND_ID",
    async run({ args, kernel }) {
      const id = args.positionals[0];
      if (!id) throw new UsageError("a command id is required");
      const command = await (await kernel()).getCommand(id);
      if (!command) return { output: { error: `no command ${id}` }, exitCode: 1 };
      return { output: command };
    },
  },
];
