import { type Block, type SearchHit, TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { panelAs } from "./procedures/panel/test-panel";
import { expectFailure, expectOk } from "./test-contract";
import { createWorld, type World } from "./test-support";

/*
 * A model-based sequence over the real router on an in-memory SQLite kernel: an agent's held writes (proposals), a
 * person's decisions on them through the panel, the person's own writes, grants and revokes of the private page to a
 * second member, and that member's reads. After every step:
 *   1. no applied change is lost: each page's blocks are the last applied write per block;
 *   2. an approved change never lands over a newer version of its block: a change whose block moved since the
 *      proposal is shown as a conflict, its acceptance is refused, and the block keeps the newer text;
 *   3. no answer depends on a page the reader may not read: the reader's search is the owner's, filtered to the
 *      pages the reader may read now, in the same order; page.get of an unreadable page is refused as a missing one.
 */

const WORDS = ["alpha", "beta", "gamma"] as const;

type Step =
  | { kind: "agentEdit"; page: number; blocks: number[]; words: string[] }
  | { kind: "agentSave"; page: number; blocks: number[]; words: string[] }
  | { kind: "approve"; pick: number }
  | { kind: "applyPart"; pick: number; keepBits: number }
  | { kind: "reject"; pick: number }
  | { kind: "personWrite"; page: number; block: number; word: string }
  | { kind: "grant" }
  | { kind: "revoke" }
  | { kind: "readerReads"; query: string };

/** One change of a proposal as the model knows it: which block, the text it was proposed over, the text proposed. */
interface ModelChange {
  blockId: string;
  base: string;
  after: string;
  decided: boolean;
}
interface ModelProposal {
  id: number;
  documentId: string;
  changes: ModelChange[];
  done: boolean;
}

const pageArb = fc.integer({ min: 0, max: 1 });
const subsetArb = fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 2 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("agentEdit" as const),
      page: pageArb,
      blocks: subsetArb,
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 2 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("agentSave" as const),
      page: pageArb,
      blocks: subsetArb,
      words: fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 2 }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant("approve" as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("applyPart" as const), pick: fc.nat(), keepBits: fc.nat() }), weight: 3 },
  fc.record({ kind: fc.constant("reject" as const), pick: fc.nat() }),
  {
    arbitrary: fc.record({
      kind: fc.constant("personWrite" as const),
      page: pageArb,
      block: fc.nat({ max: 2 }),
      word: fc.constantFrom(...WORDS),
    }),
    weight: 3,
  },
  fc.constant({ kind: "grant" as const }),
  fc.constant({ kind: "revoke" as const }),
  fc.record({ kind: fc.constant("readerReads" as const), query: fc.constantFrom(...WORDS, "secret", "plan") }),
);

/** A panel procedure's outcome: an envelope answered, or an AppError thrown (as a TRPCError carrying it). */
async function outcome(run: () => Promise<unknown>): Promise<{ ok: boolean; code: string | null; message: string }> {
  try {
    const value = (await run()) as { ok?: boolean; error?: { code: string; message: string } } | null;
    if (value && value.ok === false) return { ok: false, code: value.error!.code, message: value.error!.message };
    return { ok: true, code: null, message: "" };
  } catch (error) {
    const e = error as { cause?: { code?: string }; message: string };
    return { ok: false, code: e.cause?.code ?? null, message: e.message };
  }
}

/**
 * The test world (three blocks in all: h1, p1 on the main page; s1 on the private page, whose read grant the reader
 * holds at the start), with the workspace's policy holding agent page writes (setup through the kernel admin).
 */
async function setUp(): Promise<World> {
  const w = await createWorld();
  await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
  return w;
}

describe("proposals, person writes and grants (model-based)", () => {
  it("no applied change is lost, no approval lands over a newer block, no answer depends on an unreadable page", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 8, maxLength: 24 }), async (steps) => {
        const w = await setUp();
        try {
          const panel = panelAs(w, w.tokens.owner);
          const pages = [w.ids.page, w.ids.privatePage];
          // The model: each page's blocks in order, with their texts.
          const model = new Map<string, Map<string, string>>();
          for (const id of pages) {
            model.set(id, new Map((await w.kernel.getBlocks(id)).map((b) => [b.id, b.text ?? ""])));
          }
          let granted = true;
          const proposals: ModelProposal[] = [];
          let n = 0;
          const fresh = (word: string) => `${word} v${++n}`;
          const blockIds = (documentId: string) => [...model.get(documentId)!.keys()];
          const ref = (documentId: string) => ({ workspaceId: w.ids.ws, documentId });

          const checkBlocks = async () => {
            for (const id of pages) {
              const actual = (await w.kernel.getBlocks(id)).map((b) => [b.id, b.text]);
              expect(actual, `blocks of ${id}`).toEqual([...model.get(id)!.entries()]);
            }
          };

          /** Invariant 2 as the panel shows it: an undecided change is a conflict exactly when its block moved. */
          const checkProposals = async () => {
            for (const p of proposals.filter((x) => !x.done)) {
              const shown = await panel.proposals.get({ ...ref(p.documentId), proposalId: p.id });
              expect(shown.status).toBe("pending");
              for (const [i, c] of p.changes.entries()) {
                const state = shown.changes[i]!;
                if (c.decided) {
                  expect(state.decision, `change ${i} of ${p.id}`).toBeTruthy();
                  continue;
                }
                expect(state.decision ?? null).toBeNull();
                const moved = model.get(p.documentId)!.get(c.blockId) !== c.base;
                expect(state.state === "conflict", `change ${i} of ${p.id} on ${c.blockId}`).toBe(moved);
              }
            }
          };

          const search = async (query: string, as: "owner" | "privateReader") => {
            const out = await w.call(
              "mnote.workspace.search",
              w.envelope("mnote.workspace.search", { query, limit: 50 }, { actorId: w.ids[as] }),
              w.tokens[as],
            );
            const result = expectOk<{ hits: SearchHit[]; nextCursor: string | null }>(out, "read");
            expect(result.nextCursor).toBeNull();
            return result.hits;
          };

          const checkReader = async (query: string) => {
            const readable = (id: string) => id !== w.ids.privatePage || granted;
            const asOwner = await search(query, "owner");
            const asReader = await search(query, "privateReader");
            expect(asReader).toEqual(asOwner.filter((hit) => readable(hit.documentId)));
            for (const hit of asReader) expect(readable(hit.documentId)).toBe(true);
            const get = (documentId: string) =>
              w.call(
                "mnote.page.get",
                w.envelope("mnote.page.get", {}, { actorId: w.ids.privateReader, documentId }),
                w.tokens.privateReader,
              );
            const privateGet = await get(w.ids.privatePage);
            if (granted) {
              expectOk(privateGet, "read");
            } else {
              expectFailure(privateGet, "mnote_tool_permission_denied", M.pageUnreadable);
              expect(privateGet.error).toEqual((await get("doc_missing")).error);
              expect(JSON.stringify(privateGet)).not.toContain(w.SECRET);
            }
            expectOk(await get(w.ids.page), "read");
          };

          const agentWrite = async (step: Extract<Step, { kind: "agentEdit" | "agentSave" }>) => {
            const documentId = pages[step.page]!;
            const ids = blockIds(documentId);
            const targets = [...new Set(step.blocks.map((b) => ids[b % ids.length]!))];
            const texts = new Map(targets.map((id, i) => [id, fresh(step.words[i]!)]));
            const current = await w.kernel.getBlocks(documentId);
            const args =
              step.kind === "agentEdit"
                ? { operations: targets.map((blockId) => ({ op: "replace", blockId, text: texts.get(blockId)! })) }
                : {
                    mode: "replace",
                    content: current.map((b): Block => (texts.has(b.id) ? { ...b, text: texts.get(b.id)! } : b)),
                  };
            const tool = step.kind === "agentEdit" ? "mnote.page.edit" : "mnote.page.save";
            const before = new Set((await panel.proposals.list(ref(documentId))).map((p) => p.id));
            const held = await w.call(tool, w.envelope(tool, args, { documentId }), w.tokens.ownerAgent);
            expectFailure(held, "mnote_tool_approval_required");
            const added = (await panel.proposals.list(ref(documentId))).filter((p) => !before.has(p.id));
            expect(added).toHaveLength(1);
            const proposal = await panel.proposals.get({ ...ref(documentId), proposalId: added[0]!.id });
            expect(proposal.status).toBe("pending");
            const changes: ModelChange[] = proposal.preview.changes.map((change) => {
              expect(change.kind).toBe("update");
              const update = change as { kind: "update"; before: Block; after: Block };
              const blockId = update.after.id;
              expect(update.before.text).toBe(model.get(documentId)!.get(blockId));
              expect(update.after.text).toBe(texts.get(blockId));
              return { blockId, base: update.before.text ?? "", after: update.after.text ?? "", decided: false };
            });
            expect(changes.map((c) => c.blockId).sort()).toEqual([...targets].sort());
            proposals.push({ id: proposal.id, documentId, changes, done: false });
          };

          const pending = () => proposals.filter((p) => !p.done);
          const moved = (p: ModelProposal, c: ModelChange) => model.get(p.documentId)!.get(c.blockId) !== c.base;
          const apply = (p: ModelProposal, c: ModelChange) => {
            model.get(p.documentId)!.set(c.blockId, c.after);
            c.decided = true;
          };

          for (const step of steps) {
            switch (step.kind) {
              case "agentEdit":
              case "agentSave":
                await agentWrite(step);
                break;
              case "approve": {
                const open = pending();
                if (open.length === 0) break;
                const p = open[step.pick % open.length]!;
                const undecided = p.changes.filter((c) => !c.decided);
                const fine = undecided.filter((c) => !moved(p, c));
                const got = await outcome(() => panel.proposals.approve({ ...ref(p.documentId), proposalId: p.id }));
                if (fine.length === 0) {
                  // Every change left conflicts with a newer block: refused, nothing written.
                  expect(got, JSON.stringify(got)).toMatchObject({ ok: false, code: "mnote_tool_conflict" });
                } else {
                  expect(got, got.message).toMatchObject({ ok: true });
                  fine.forEach((c) => apply(p, c));
                  // The conflicting ones stay pending; with none left, the proposal is decided.
                  if (p.changes.every((c) => c.decided)) p.done = true;
                }
                break;
              }
              case "applyPart": {
                const open = pending();
                if (open.length === 0) break;
                const p = open[step.pick % open.length]!;
                const undecided = p.changes.map((c, i) => ({ c, i })).filter(({ c }) => !c.decided);
                let kept = undecided.filter((_, j) => (step.keepBits >> j) & 1);
                if (kept.length === 0) kept = [undecided[0]!];
                const got = await outcome(() =>
                  panel.proposals.applyPart({ ...ref(p.documentId), proposalId: p.id, keep: kept.map((k) => k.i) }),
                );
                if (kept.some(({ c }) => moved(p, c))) {
                  // A kept change over a newer block: the whole step is refused and writes nothing.
                  expect(got, JSON.stringify(got)).toMatchObject({ ok: false, code: "mnote_tool_conflict" });
                } else {
                  expect(got, got.message).toMatchObject({ ok: true });
                  kept.forEach(({ c }) => apply(p, c));
                  p.changes.forEach((c) => (c.decided = true));
                  p.done = true;
                }
                break;
              }
              case "reject": {
                const open = pending();
                if (open.length === 0) break;
                const p = open[step.pick % open.length]!;
                const got = await outcome(() => panel.proposals.reject({ ...ref(p.documentId), proposalId: p.id }));
                expect(got, got.message).toMatchObject({ ok: true });
                p.changes.forEach((c) => (c.decided = true));
                p.done = true;
                break;
              }
              case "personWrite": {
                const documentId = pages[step.page]!;
                const ids = blockIds(documentId);
                const blockId = ids[step.block % ids.length]!;
                const text = fresh(step.word);
                const out = await w.call(
                  "mnote.page.edit",
                  w.envelope("mnote.page.edit", { operations: [{ op: "replace", blockId, text }] }, { documentId }),
                  w.tokens.owner,
                  undefined,
                  "panel",
                );
                expectOk(out, "write");
                model.get(documentId)!.set(blockId, text);
                break;
              }
              case "grant":
                await w.kernel.admin.grantPage({
                  documentId: w.ids.privatePage,
                  userId: w.ids.privateReader,
                  access: "read",
                });
                granted = true;
                break;
              case "revoke":
                await w.kernel.admin.revokePageGrant({ documentId: w.ids.privatePage, userId: w.ids.privateReader });
                granted = false;
                break;
              case "readerReads":
                await checkReader(step.query);
                break;
            }
            await checkBlocks();
            await checkProposals();
            await checkReader(WORDS[n % WORDS.length]!);
          }
        } finally {
          await w.kernel.close();
        }
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});
