import { type Block, canonicalBlock, type Change, LIMITS, type ParsedBlockInput, type ToolArgs } from "@mnote/contract";
import { type PageRecord, sha256Hex, type SqlKernel } from "@mnote/kernel";
import { diffBlocks, type Placement, placementsFromOrder, summarizeChanges } from "@mnote/diff";
import { AppError } from "../app-error";
import { withKeptMarks } from "../markdown-args";
import { nextRevisionStep, type Planner, writePlan } from "./write-plan";
import { counted } from "../counted";

/**
 * New blocks get ids derived from the idempotency key and their position, so the
 * dry run and the real call (same key, same page) produce the same ids, and a retry does too.
 * The key is only unique per (workspace, actor, tool) and only within its retention
 * window, so a derived id can already be on the page (another actor used the same key,
 * or the key came back after it expired). Such an id is skipped, deterministically, so a
 * block sent without an id is always a new block: before this, an append failed with
 * "block id … is already on the page" and a replace silently took over the old block.
 * Pass the ids on the page the plan is made against (`onPage`) to get the planner's ids.
 */
export function withIds(content: ParsedBlockInput[], key: string, onPage: ReadonlySet<string> = new Set()): Block[] {
  const explicit = new Set(content.flatMap((block) => (block.id ? [block.id] : [])));
  const derive = (seed: string) => `b${sha256Hex(seed).slice(0, 15)}`;
  return content.map((block, index) => {
    if (block.id) return canonicalBlock({ ...block, id: block.id });
    let id = derive(`${key}:${index}`);
    for (let salt = 1; onPage.has(id) || explicit.has(id); salt++) id = derive(`${key}:${index}:${salt}`);
    return canonicalBlock({ ...block, id });
  });
}

export const planPageSave: Planner<ToolArgs<"mnote.page.save">> = async ({ kernel, input, key, page, exact }) => {
  const args = input.args;
  if (args.mode === "append") return planAppend(kernel, key, args, page, exact);
  const current = await kernel.getBlocks(page.id);
  const incoming = withIds(withKeptMarks(args.content!, current), key, new Set(current.map((block) => block.id)));
  refuseRepeatedIds(incoming);
  const changes = diffBlocks(current, incoming);
  const plan = planOf(args, incoming, current.length, changes, page, placementsFromOrder(incoming, changes));
  const deletes = plan.preview.changes.filter((change) => change.kind === "delete").length;
  if (!args.allowDeletes && deletesTooMany(deletes, current.length)) {
    const message =
      `args.content: this replace would delete ${deletes} of the page's ${current.length} blocks; a block left out of ` +
      "content is deleted. Keep the ids of the blocks to keep, change a few blocks with mnote.page.edit, or pass " +
      "allowDeletes: true if the user asked to delete them.";
    plan.preview.warnings.push({ code: "deletes_many_blocks", field: "content", message });
    return { ...plan, refuse: { code: "mnote_tool_invalid_input" as const, message } };
  }
  return plan;
};

/**
 * The destructive-change guard (decision 0015): models drop blocks by accident when they send a
 * whole body back. A few deletions pass (a short page rewritten); past that, a replace may delete at
 * most half of the page and at most `replaceDeleteCount` blocks unless the call says `allowDeletes`.
 */
export function deletesTooMany(deletes: number, pageBlocks: number): boolean {
  if (deletes <= LIMITS.replaceDeleteFree) return false;
  return deletes > pageBlocks * LIMITS.replaceDeleteShare || deletes > LIMITS.replaceDeleteCount;
}

function refuseRepeatedIds(incoming: Block[]): Set<string> {
  const seen = new Set<string>();
  for (const block of incoming) {
    if (seen.has(block.id))
      throw new AppError("mnote_tool_invalid_input", `args.content: block id ${block.id} appears twice`);
    seen.add(block.id);
  }
  return seen;
}

/**
 * An append asks the kernel only whether its new ids are already on the page, and takes the
 * block count from the page row: reading every id made an append on a long page cost as
 * much as reading the whole page. A derived id found on the page is derived again (salted),
 * and the new ids asked about, until every id in the plan has been checked.
 *
 * Ids the caller named are always asked about (a clash is the caller's mistake, reported by id).
 * Derived ids are asked about only when the plan must be exact: otherwise they are new unless
 * this key was used on this page before, the insert itself finds that, and `runWrite` plans
 * again exactly. A plain agent append then reads nothing before its write.
 */
async function planAppend(
  kernel: SqlKernel,
  key: string,
  args: ToolArgs<"mnote.page.save">,
  page: PageRecord,
  exact: boolean,
) {
  const named = new Set(args.content!.flatMap((block) => (block.id ? [block.id] : [])));
  const onPage = new Set<string>();
  const asked = new Set<string>();
  let incoming = withIds(args.content!, key, onPage);
  for (;;) {
    const unasked = incoming.map((block) => block.id).filter((id) => !asked.has(id) && (exact || named.has(id)));
    if (unasked.length === 0) break;
    for (const id of unasked) asked.add(id);
    const found = await kernel.findBlockIds(page.id, unasked);
    if (found.length === 0) break;
    for (const id of found) onPage.add(id);
    incoming = withIds(args.content!, key, onPage);
  }
  const seen = refuseRepeatedIds(incoming);
  if (incoming.some((block) => onPage.has(block.id))) {
    // Name the first clashing block in page order, as the message always has (an error path: read the blocks).
    const clash = (await kernel.getBlocks(page.id)).find((block) => seen.has(block.id));
    const id = clash?.id ?? incoming.find((block) => onPage.has(block.id))!.id;
    throw new AppError("mnote_tool_invalid_input", `args.content: block id ${id} is already on the page`);
  }
  const changes = incoming.map((block, i) => ({ kind: "insert" as const, index: page.blockCount + i, block }));
  // Appended blocks go at the end of the page as it is when applied, each after the one before it.
  const placements = incoming.map((_block, i): Placement => (i === 0 ? { end: true } : { after: incoming[i - 1]!.id }));
  return planOf(args, incoming, page.blockCount, changes, page, placements);
}

function planOf(
  args: ToolArgs<"mnote.page.save">,
  incoming: Block[],
  currentLength: number,
  changes: Change[],
  page: PageRecord,
  placements: (Placement | null)[],
) {
  return writePlan(
    page,
    { name: "page.body.save", mode: args.mode, blocks: incoming },
    {
      plan: [
        args.mode === "append"
          ? `add ${counted(incoming.length, "block")} after the ${currentLength} on the page`
          : `replace the page's body: ${counted(currentLength, "block")} become ${incoming.length}`,
        nextRevisionStep(page),
      ],
      diff: summarizeChanges(changes, args.mode),
      changes,
      placements,
    },
  );
}
