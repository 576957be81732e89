import { FOLD_AT } from "@mnote/kernel";
import { createCaller, createToolsContext } from "@mnote/tools";
import { fmtMs, median, now, table } from "./stats";
import { ALL_SCOPES, assertOk, benchWorld, driverOf, paragraphs } from "./world";

export interface ApprovalsOptions {
  /** Blocks on the page. */
  blocks: number;
  /** Pending proposals before the approvals start (issue 32: 30). */
  pending: number;
  /** Rounds of each side. */
  rounds: number;
}

/** Issue 32: the 30th approval within 2× of the only one; the list after 30 approvals under 300 ms. */
export const APPROVALS_LIMITS = { ratio: 2, listMs: 300 };

/**
 * Section 9 (issue 32, decision 0030): a workspace holds agent writes; the agent's `page.edit` calls each replace one
 * block of a 10,000-block page and are held. Timed, through the panel's `panel.proposals.approve` as the browser calls
 * it (`createCaller(ctx).panel`, a person's token at the panel's door):
 * - the only pending proposal approved (on the page it was computed on: applied as shown);
 * - the 30th of 30 approved after the other 29 (its base is 29 revisions old: merged again with the page as it is,
 *   its one change re-planned at the current revision);
 * - the panel's list of 30 pending proposals with the 30 approved before them on the page.
 */
export async function runApprovals(options: ApprovalsOptions) {
  const world = await benchWorld("approvals");
  const { admin } = world.kernel;
  await admin.setWorkspacePolicy(world.ws, { approvalRequired: true }, { by: "bench" });
  const { token: person } = await admin.createToken({
    userId: world.owner,
    holder: "person",
    scopes: ALL_SCOPES,
    label: "bench panel",
  });
  const panel = () =>
    createCaller(createToolsContext({ kernel: world.kernel, authorization: `Bearer ${person}`, door: "panel" })).panel;
  const blocks = paragraphs(options.blocks);
  let held = 0;

  /** The agent's held edit of block `i`: answers the new proposal's id. */
  const hold = async (page: string, i: number) => {
    const key = `bench_hold_${++held}`;
    const envelope = world.envelope(
      "mnote.page.edit",
      page,
      { operations: [{ op: "replace", blockId: blocks[i]!.id, text: `Edited by the agent (${key})` }] },
      { idempotencyKey: key },
    );
    const out = await world.call("mnote.page.edit", envelope);
    if (out.error?.code !== "mnote_tool_approval_required") throw new Error(`not held: ${JSON.stringify(out.error)}`);
    const listed = await panel().proposals.list({ workspaceId: world.ws, documentId: page });
    return listed.find((p) => p.idempotencyKey === key)!.id;
  };
  const approve = async (page: string, proposalId: number) => {
    const t = now();
    const envelope = await panel().proposals.approve({ workspaceId: world.ws, documentId: page, proposalId });
    const ms = now() - t;
    assertOk(envelope, "approval");
    return ms;
  };

  /**
   * Block search folds its recent notes into FTS5 in the write that makes the 32nd (FOLD_AT, decision 0045): one
   * write in 32 pays it. Both timed approvals run right after a fold, so neither pays it and the ratio is the
   * merge's alone (issue 32). A round wrote a multiple of 32 notes, so the fold had landed on the same approval in
   * every round, the timed 30th: 2.08× and 2.29× in two runs (2026-12-06), the 29 before it at the only one's time.
   * The fold's own cost is the third row: an approval that makes it, after 31 other approvals' notes. The notes are
   * counted in the table that holds them; a new page's blocks and a changed block are each one note.
   */
  const notes = async () =>
    Number((await driverOf(world.kernel).get<{ n: number }>(`SELECT COUNT(*) AS n FROM block_search_recent`))!.n);
  const notesTo = async (target: number) => {
    const add = (target - (await notes()) + FOLD_AT) % FOLD_AT;
    if (add > 0) await world.newPage(paragraphs(add, "fold"));
    if ((await notes()) !== target) throw new Error(`approvals: ${await notes()} search notes, not ${target}`);
  };
  const foldFirst = () => notesTo(0);
  const only: number[] = [];
  const last: number[] = [];
  const folding: number[] = [];
  const list: number[] = [];
  const stride = Math.floor(options.blocks / (options.pending * 2 + 1));
  for (let round = 0; round < options.rounds; round++) {
    // The only one: a fresh page, one held edit, approved (warm-up approval first on the same page).
    const single = await world.newPage(blocks);
    await approve(single, await hold(single, 1));
    const onlyId = await hold(single, 2);
    await foldFirst();
    only.push(await approve(single, onlyId));
    // An approval that makes the search fold, on its own row: 32 approvals on a small page, the last making the
    // 32nd note, all of them approvals' (a fold of changed blocks costs more than one of new blocks).
    const small = await world.newPage(paragraphs(100));
    const held: number[] = [];
    for (let p = 0; p < FOLD_AT; p++) held.push(await hold(small, p));
    await foldFirst();
    for (const id of held.slice(0, -1)) await approve(small, id);
    if ((await notes()) !== FOLD_AT - 1) throw new Error("approvals: the fold's approvals did not each make a note");
    folding.push(await approve(small, held.at(-1)!));
    // The 30th of 30: 30 held edits of distinct blocks, 29 approved, then the timed one.
    const page = await world.newPage(blocks);
    const ids: number[] = [];
    for (let p = 0; p < options.pending; p++) ids.push(await hold(page, stride * (p + 1)));
    for (const id of ids.slice(0, -1)) await approve(page, id);
    await foldFirst();
    last.push(await approve(page, ids.at(-1)!));
    // 30 more pending beside the 30 approved: the panel's list.
    for (let p = 0; p < options.pending; p++) await hold(page, stride * (options.pending + p + 1));
    const ref = { workspaceId: world.ws, documentId: page };
    const listed = await panel().proposals.list(ref);
    if (listed.filter((p) => p.status === "pending").length !== options.pending) throw new Error("pending count");
    for (let i = 0; i < 5; i++) {
      const t = now();
      await panel().proposals.list(ref);
      list.push(now() - t);
    }
  }
  const ratio = median(last) / median(only);
  const pass = ratio <= APPROVALS_LIMITS.ratio && median(list) < APPROVALS_LIMITS.listMs;
  const markdown = table(
    ["call", "samples", "p50 ms", "slowest ms"],
    [
      [
        "`panel.proposals.approve`: the only pending proposal",
        String(only.length),
        fmtMs(median(only)),
        fmtMs(Math.max(...only)),
      ],
      [
        `\`panel.proposals.approve\`: the ${options.pending}th of ${options.pending} (after ${options.pending - 1} approvals)`,
        String(last.length),
        fmtMs(median(last)),
        fmtMs(Math.max(...last)),
      ],
      [
        `\`panel.proposals.approve\`: the last of ${FOLD_AT} on a 100-block page, which makes block search fold the approvals' ${FOLD_AT} notes (one write in ${FOLD_AT}; not in the ratio)`,
        String(folding.length),
        fmtMs(median(folding)),
        fmtMs(Math.max(...folding)),
      ],
      [
        `\`panel.proposals.list\`: ${options.pending} pending beside ${options.pending} approved`,
        String(list.length),
        fmtMs(median(list)),
        fmtMs(Math.max(...list)),
      ],
    ],
  );
  return {
    only: median(only),
    last: median(last),
    folding: median(folding),
    list: median(list),
    ratio,
    pass,
    markdown,
  };
}
