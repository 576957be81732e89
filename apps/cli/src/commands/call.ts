import { callTool, createToolsContext } from "@mnote/tools";
import { optional, UsageError } from "../args";
import type { Command } from "../command";

export const callCommand: Command = {
  words: ["call"],
  usage: "mnote call [--token TOKEN] < envelope.json   (or MNOTE_TOKEN; prints the output envelope)",
  async run({ args, kernel, io, settings }) {
    const token = optional(args, "token") ?? io.env.MNOTE_TOKEN ?? null;
    const text = await io.stdin();
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      throw new UsageError("stdin must be the tool input envelope as JSON");
    }
    const name = (envelope as { toolName?: unknown } | null)?.toolName;
    const output = await callTool(
      createToolsContext({ kernel: await kernel(), authorization: token, settings }),
      typeof name === "string" ? name : "",
      envelope,
    );
    return { output, exitCode: output.ok ? 0 : 1 };
  },
};
