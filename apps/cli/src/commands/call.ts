import { callTool, createToolsContext } from "@mnote/tools";
import { optional, UsageError } from "../args";
import type { Command } from "../command";

export const callCommand: Command = {
  words: ["call"],
  usage: "mnote call [--token TOKEN] < envelope.json   (or MNOTE_TOKEN; prints the output envelope)",
  help: "Runs one tool call through the router with an agent token: the input envelope on stdin, the output envelope on stdout; exit 1 when ok is false.",
  async run({ args, kernel, io, config }) {
    const token = optional(args, "token") ?? config.token ?? null;
    const text = await io.stdin();
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      throw new UsageError("stdin must be the tool input envelope as JSON");
    }
    const name = (envelope as { toolName?: unknown } | null)?.toolName;
    const output = await callTool(
      // An agent door: the approval policy holds its writes, and a person token is refused (docs/security.md).
      createToolsContext({ kernel: await kernel(), authorization: token, door: "agent", settings: config.tools }),
      typeof name === "string" ? name : "",
      envelope,
    );
    return { output, exitCode: output.ok ? 0 : 1 };
  },
};
