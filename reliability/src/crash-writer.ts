/**
 * The writer the crash suite kills. It opens the SQLite file kernel and writes through
 * `callTool` with a fresh idempotency key each time, forever: `page.save` appends of one
 * block with an explicit id, and every fifth call an AI note (so nodes and edges are on the
 * line too). After each acknowledged call it prints one JSON line:
 *
 *   {"kind":"save","commandId":"cmd_…","revision":12,"blockId":"r3_7"}
 *   {"kind":"note","commandId":"cmd_…","nodeId":"node_…","edgeId":"edge_…"}
 *
 * A line is written only after callTool returned, that is after the transaction committed;
 * stdout writes to a pipe are synchronous on Linux, so a line the parent read is a write
 * the client saw acknowledged.
 *
 * Usage: node --import tsx crash-writer.ts <db path> <run> (token and ids in MNOTE_CRASH_* env)
 */
import { openSqliteDriver, SqlKernel } from "@mnote/kernel";
import { callTool, createToolsContext } from "@mnote/tools";

const [path, run] = process.argv.slice(2) as [string, string];
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const token = env("MNOTE_CRASH_TOKEN");
const workspaceId = env("MNOTE_CRASH_WS");
const documentId = env("MNOTE_CRASH_PAGE");
const actorId = env("MNOTE_CRASH_ACTOR");

const kernel = await SqlKernel.open(openSqliteDriver(path));
const ctx = createToolsContext({ kernel, authorization: `Bearer ${token}` });
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
print({ kind: "ready" });

for (let i = 0; ; i++) {
  const note = i % 5 === 4;
  const blockId = `r${run}_${i}`;
  const tool = note ? "mnote.artifact.create_ai_note" : "mnote.page.save";
  const out = await callTool(ctx, tool, {
    toolName: tool,
    workspaceId,
    documentId,
    actorId,
    sessionId: `crash_${run}`,
    runId: `crash_${run}`,
    toolCallId: `crash_${run}_${i}`,
    traceId: `crash_${run}_${i}`,
    capabilityScope: ["page.read", "page.write", "artifact.write"],
    idempotencyKey: `crash_${run}_${i}`,
    dryRun: false,
    args: note
      ? { content: `note ${i} of run ${run}` }
      : { mode: "append", content: [{ id: blockId, type: "paragraph", text: `block ${i} of run ${run}` }] },
  });
  if (!out.ok) {
    print({ kind: "error", error: out.error });
    process.exit(1);
  }
  const result = out.result as { revision?: number; nodeId?: string; edgeId?: string };
  print(
    note
      ? { kind: "note", commandId: out.audit.commandId, nodeId: result.nodeId, edgeId: result.edgeId }
      : { kind: "save", commandId: out.audit.commandId, revision: result.revision, blockId },
  );
}
