import { canonicalToolName } from "@mnote/contract";
import type { StreamedCall } from "./reduce-run";

/** What the match needs of an audit record of the conversation. */
export interface ConversationRecord {
  id: number;
  identity: { toolName: string };
}

/**
 * The audit record of each streamed call of a run: the n-th call of a tool is the n-th record of that tool
 * among the conversation's records after `floor` (the newest one when the run started). Hermes's events
 * carry no tool-call id and the plugin gets no run id, so order is the join; it is exact because a
 * conversation has one run at a time (decision 0021). `records` may come in any order.
 */
export function matchRecords<R extends ConversationRecord>(
  calls: readonly StreamedCall[],
  records: readonly R[],
  floor: number,
): (R | undefined)[] {
  const byTool = new Map<string, R[]>();
  for (const record of [...records].filter((r) => r.id > floor).sort((a, b) => a.id - b.id)) {
    const list = byTool.get(record.identity.toolName) ?? [];
    list.push(record);
    byTool.set(record.identity.toolName, list);
  }
  const seen = new Map<string, number>();
  return calls.map((call) => {
    const tool = canonicalToolName(call.tool) ?? call.tool;
    const nth = seen.get(tool) ?? 0;
    seen.set(tool, nth + 1);
    return byTool.get(tool)?.[nth];
  });
}
