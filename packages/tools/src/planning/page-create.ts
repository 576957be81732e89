import { type Change, type ToolArgs } from "@mnote/contract";
import { placementsFromOrder, summarizeChanges } from "@mnote/diff";
import { AppError } from "../app-error";
import { counted } from "../counted";
import { withIds } from "./page-save";
import { type Planner, writePlan } from "./write-plan";

/**
 * A new page, planned on the empty page it starts as (decision 0046): its title and each of its blocks are the
 * changes a person reviews, so the proposal shows the whole new page. `ownerId` is the person a private page is
 * granted to: the proposer's person, also when someone else approves it.
 */
export const planPageCreate =
  (ownerId: string): Planner<ToolArgs<"mnote.page.create">> =>
  async ({ input, key, page }) => {
    const { title, blocks: sent, private: isPrivate } = input.args;
    const blocks = withIds(sent!, key);
    const seen = new Set<string>();
    for (const block of blocks) {
      if (seen.has(block.id))
        throw new AppError("mnote_tool_invalid_input", `args.blocks: block id ${block.id} appears twice`);
      seen.add(block.id);
    }
    const inserts: Change[] = blocks.map((block, index) => ({ kind: "insert", index, block }));
    const changes: Change[] = [{ kind: "set_title", before: "", after: title }, ...inserts];
    return writePlan(
      page,
      { name: "page.create", title, isPrivate, ownerId, blocks },
      {
        plan: [
          `create ${isPrivate ? "a private page" : "a page"} ${JSON.stringify(title)} with ${counted(blocks.length, "block")} (documentId ${page.id})`,
          ...(isPrivate ? ["only its owner (the person the call acts for) can read it"] : []),
          "the new page starts at revision 1",
        ],
        diff: [{ op: "set_title", fields: ["title"] }, ...summarizeChanges(inserts, "replace")],
        changes,
        placements: placementsFromOrder(blocks, changes),
      },
    );
  };
