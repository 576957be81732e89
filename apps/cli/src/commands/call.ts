import { callTool, createToolsContext } from "@mnote/tools";
import { optional, UsageError } from "../args";
import type { Command } from "../command";

/**
 * `mnote call`'s exit code when the workspace's approval policy held the write for a person: not a failure (the
 * write waits under Suggestions in the panel, and a retry of the same call answers the decision), so a script can tell it apart
 * from a refusal (1) and a usage error (2).
 */
export const EXIT_HELD_FOR_APPROVAL = 3;

export const callCommand: Command = {
  words: ["call"],
  usage: "mnote call [--token TOKEN] < envelope.json   (or MNOTE_TOKEN; prints the output envelope)",
  help:
    "Runs one tool call through the router with an agent token: the input envelope on stdin, the output envelope on stdout. " +
    `Exit 0 when ok is true, ${EXIT_HELD_FOR_APPROVAL} when the write is held for a person's approval (mnote_tool_approval_required: ` +
    "it waits under Suggestions in the panel; the same call again answers the decision), 1 for any other refusal, 2 for a usage error. " +
    "Through pnpm (pnpm mnote call) a non-zero exit also prints pnpm's ELIFECYCLE line; " +
    "node apps/cli/bin/mnote.mjs call prints the envelope alone.",
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
    const held = output.error?.code === "mnote_tool_approval_required";
    return { output, exitCode: output.ok ? 0 : held ? EXIT_HELD_FOR_APPROVAL : 1 };
  },
};
