import type { Block } from "@mnote/contract";
import { createCaller, createToolsContext } from "@mnote/tools";
import { fmtBytes, fmtMs, median, now, table } from "./stats";
import { ALL_SCOPES, assertOk, benchWorld } from "./world";

export interface ProposalsOptions {
  /** Large dry runs an editor's agent makes on one page before the owner lists its proposals. */
  dryRuns: number;
  /** Timed calls of each read. */
  calls: number;
}

/** Issue 11 item 5: the owner's proposals list must answer in < 300 ms and < 1 MB after 30 large dry runs. */
export const PROPOSALS_LIST_LIMITS = { ms: 300, bytes: 1_000_000 };

const BLOCKS = 100;
const BLOCK_CHARS = 19_990;
const text = (seed: string, i: number) => `${seed} ${i} `.padEnd(BLOCK_CHARS, "lorem ipsum dolor sit amet ");

/**
 * Section 6: an editor's agent makes `dryRuns` page.save replace dry runs on one page, each changing
 * every block of a 100-block page of 20,000-character blocks (a multi-megabyte preview, recorded in its
 * audit record); then the owner's panel lists the page's proposals. Timed: the list as the panel calls it
 * (`createCaller(ctx).panel.proposals.list`, in process; bytes are its JSON, what the wire would carry),
 * one proposal's full preview on demand (`panel.proposals.get`), and for scale the read the list used to
 * make (the page's newest 1,000 audit records with their previews).
 */
export async function runProposals(options: ProposalsOptions) {
  const world = await benchWorld("proposals");
  const { admin } = world.kernel;
  const editor = (await admin.createUser({ id: "bench_editor", name: "Bench editor" })).id;
  await admin.addMember({ workspaceId: world.ws, userId: editor, role: "editor" });
  const editorAgent = (
    await admin.createToken({ userId: editor, holder: "agent", scopes: ALL_SCOPES, label: "editor agent" })
  ).token;
  const page = await world.newPage(
    Array.from({ length: BLOCKS }, (_, i): Block => ({ id: `p${i}`, type: "paragraph", text: text("before", i) })),
  );

  let previewBytes = 0;
  for (let run = 0; run < options.dryRuns; run++) {
    const content = Array.from({ length: BLOCKS }, (_, i): Block => ({
      id: `p${i}`,
      type: "paragraph",
      text: text(`dry run ${run}`, i),
    }));
    const envelope = world.envelope(
      "mnote.page.save",
      page,
      { content, mode: "replace" },
      { actorId: editor, dryRun: true },
    );
    const out = await world.call("mnote.page.save", envelope, `Bearer ${editorAgent}`);
    assertOk(out, "large dry run");
    previewBytes = Math.max(previewBytes, JSON.stringify(out.result).length);
  }
  const [latest] = await world.kernel.listAudit({ documentId: page, limit: 1 });
  const recordBytes = JSON.stringify(latest?.detail ?? null).length;

  // The owner reads her panel as a person, at the panel's door (the only door that serves panel procedures).
  const { token: ownerPerson } = await world.kernel.admin.createToken({
    userId: world.owner,
    holder: "person",
    scopes: ["page.read", "page.write", "artifact.write"],
    label: "bench panel",
  });
  const panel = () =>
    createCaller(createToolsContext({ kernel: world.kernel, authorization: `Bearer ${ownerPerson}`, door: "panel" }))
      .panel;
  const ref = { workspaceId: world.ws, documentId: page };
  const measure = async (read: () => Promise<unknown>, calls: number, warm = true) => {
    if (warm) await read(); // statements prepared, pages cached
    const latencies: number[] = [];
    let bytes = 0;
    for (let i = 0; i < calls; i++) {
      const t = now();
      const result = await read();
      latencies.push(now() - t);
      bytes = JSON.stringify(result).length;
    }
    return { p50: median(latencies), max: Math.max(...latencies), bytes };
  };
  const listed = await panel().proposals.list(ref);
  if (listed.filter((p) => p.status === "pending").length !== options.dryRuns)
    throw new Error(`expected ${options.dryRuns} pending proposals, listed ${listed.length}`);
  const list = await measure(() => panel().proposals.list(ref), options.calls);
  const one = await measure(
    () => panel().proposals.get({ ...ref, proposalId: listed[0]!.id }),
    Math.max(3, Math.round(options.calls / 3)),
  );
  // Tens of seconds a call: timed once, for scale only.
  const oldRead = await measure(() => world.kernel.listAudit({ documentId: page, limit: 1000 }), 1, false);
  const pass = list.p50 < PROPOSALS_LIST_LIMITS.ms && list.bytes < PROPOSALS_LIST_LIMITS.bytes;

  const markdown = table(
    ["read", "p50 ms", "slowest ms", "answer (JSON)"],
    [
      [
        `\`panel.proposals.list\` (${options.dryRuns} pending, summaries)`,
        fmtMs(list.p50),
        fmtMs(list.max),
        fmtBytes(list.bytes),
      ],
      ["`panel.proposals.get` (one proposal in full)", fmtMs(one.p50), fmtMs(one.max), fmtBytes(one.bytes)],
      [
        "for scale, one call: the page's newest 1,000 audit records (what the list read before the index)",
        fmtMs(oldRead.p50),
        fmtMs(oldRead.max),
        fmtBytes(oldRead.bytes),
      ],
    ],
  );
  return { list, one, oldRead, previewBytes, recordBytes, pass, markdown };
}
