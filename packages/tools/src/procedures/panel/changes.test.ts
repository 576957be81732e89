import { TOOL_ERROR_MESSAGES as M, type ToolName } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { createWorld, type World, withBody } from "../../test-support";
import { panelAs } from "./test-panel";

/**
 * Issue 32 (decision 0030): a proposal is a set of changes anchored to what they change, each decided on its own and
 * merged with the page as it is now; a revert takes back exactly one write; the agent's retry hears what happened.
 */

const BODY = [
  { id: "h1", type: "heading" as const, level: 1 as const, text: "Rollout" },
  { id: "p1", type: "paragraph" as const, text: "First paragraph" },
  { id: "p2", type: "paragraph" as const, text: "Second paragraph" },
];

async function heldWorld() {
  const w = await createWorld();
  await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
  const revision = await withBody(w, BODY);
  const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
  return { w, ref, revision, ada: panelAs(w, w.tokens.owner), ben: panelAs(w, w.tokens.editor) };
}

/** The agent's held call: answers approval required; `again()` retries it with the same key and payload. */
async function held(w: World, tool: ToolName, args: Record<string, unknown>, key: string) {
  const envelope = w.envelope(tool, args, { idempotencyKey: key, runId: "run_agent" });
  const again = () => w.call(tool, envelope, w.tokens.ownerAgent);
  expect((await again()).error?.code).toBe("mnote_tool_approval_required");
  return { envelope, again };
}

const idOf = async (w: World, key: string) =>
  (await panelAs(w, w.tokens.owner).proposals.list({ workspaceId: w.ids.ws, documentId: w.ids.page })).find(
    (p) => p.idempotencyKey === key,
  )!.id;

const texts = async (w: World) => (await w.kernel.getBlocks(w.ids.page)).map((b) => b.text);

/** A person's own write, not held: the page moves under the pending proposals. */
const personEdit = (w: World, operations: unknown[]) =>
  w.call("mnote.page.edit", w.envelope("mnote.page.edit", { operations }), w.tokens.owner);

describe("unrelated suggestions stay current", () => {
  it("approving a block edit leaves a rename and an edit of another block pending and applicable, and the agent hears each", async () => {
    const { w, ref, ada } = await heldWorld();
    const editP1 = await held(
      w,
      "mnote.page.edit",
      { operations: [{ op: "replace", blockId: "p1", text: "P1 by agent" }] },
      "k1",
    );
    const rename = await held(w, "mnote.page.update_title", { title: "Agent title" }, "k2");
    const editP2 = await held(
      w,
      "mnote.page.edit",
      { operations: [{ op: "replace", blockId: "p2", text: "P2 by agent" }] },
      "k3",
    );
    expect(await ada.proposals.approve({ ...ref, proposalId: await idOf(w, "k1") })).toMatchObject({ ok: true });
    const pending = (await ada.proposals.list(ref)).filter((p) => p.status === "pending");
    expect(pending.map((p) => [p.idempotencyKey, p.changeCounts.pending])).toEqual([
      ["k3", 1],
      ["k2", 1],
    ]);
    const renameCard = await ada.proposals.get({ ...ref, proposalId: await idOf(w, "k2") });
    expect(renameCard.changes).toMatchObject([{ state: "pending", choices: ["accept", "reject"] }]);
    expect(await ada.proposals.approve({ ...ref, proposalId: await idOf(w, "k2") })).toMatchObject({ ok: true });
    expect(await ada.proposals.approve({ ...ref, proposalId: await idOf(w, "k3") })).toMatchObject({ ok: true });
    expect(await texts(w)).toEqual(["Rollout", "P1 by agent", "P2 by agent"]);
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Agent title");
    // Each retry hears "applied", in its own tool's result form (the MCP client checks it against the schema).
    expect(await editP1.again()).toMatchObject({ ok: true, result: { commandName: "page.body.edit" } });
    const renamed = await rename.again();
    expect(renamed).toMatchObject({ ok: true, result: { commandName: "page.head.updateTitle" } });
    expect(renamed.result).not.toHaveProperty("decision");
    expect(await editP2.again()).toMatchObject({
      ok: true,
      result: { commandName: "page.body.edit", insertedBlockIds: [] },
    });
  });
});

describe("deciding change by change: the rest stays pending, decisions live on the server", () => {
  const THREE = {
    operations: [
      { op: "replace", blockId: "p1", text: "P1 by agent" },
      { op: "insert", after: "p2", blocks: [{ id: "a1", type: "paragraph", text: "Alpha line" }] },
      { op: "delete", blockIds: ["h1"] },
    ],
  };

  it("one change applied by Ada, one left out by Ben with a reason, the last applied: the agent hears which and why", async () => {
    const { w, ref, ada, ben } = await heldWorld();
    const call = await held(w, "mnote.page.edit", THREE, "k_three");
    const proposalId = await idOf(w, "k_three");
    const first = await ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 0, choice: "accept" }] });
    expect(first.envelope).toMatchObject({ ok: true });
    expect(first.proposal).toMatchObject({ status: "pending", changeCounts: { pending: 2, applied: 1 } });
    expect(await texts(w)).toEqual(["Rollout", "P1 by agent", "Second paragraph"]);
    // A second reviewer reads Ada's decision from the server, and decides the next change.
    const seen = await ben.proposals.get({ ...ref, proposalId });
    expect(seen.changes.map((c) => [c.state, c.decision?.by.actorName ?? null])).toEqual([
      ["applied", "owner"],
      ["pending", null],
      ["pending", null],
    ]);
    expect(seen.changes[1]!.description).toBe("inserted 'Alpha line' after 'Second paragraph'");
    expect(await call.again()).toMatchObject({ error: { code: "mnote_tool_approval_required" } });
    const second = await ben.proposals.decide({
      ...ref,
      proposalId,
      decisions: [{ index: 2, choice: "reject", reason: "Keep the heading" }],
    });
    expect(second.envelope).toBeNull();
    expect(second.proposal).toMatchObject({ status: "pending", changeCounts: { pending: 1, applied: 1, rejected: 1 } });
    // Deciding a decided change again is refused, nothing written.
    await expect(
      ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 2, choice: "accept" }] }),
    ).rejects.toThrow(/already decided/);
    const last = await ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 1, choice: "accept" }] });
    expect(last.proposal).toMatchObject({ status: "applied_in_part", part: { kept: 2, total: 3 } });
    expect(await texts(w)).toEqual(["Rollout", "P1 by agent", "Second paragraph", "Alpha line"]);
    const retry = await call.again();
    expect(retry).toMatchObject({
      ok: true,
      result: {
        commandName: "page.body.edit",
        decision: {
          status: "applied_in_part",
          kept: 2,
          total: 3,
          changes: [
            { change: 0, target: "block p1", outcome: "applied" },
            { change: 1, target: "block a1", outcome: "applied" },
            { change: 2, target: "block h1", outcome: "left_out", reason: "Keep the heading" },
          ],
        },
      },
    });
  });

  it("an edited change: the page holds the person's block with its marks, and the agent hears its final content", async () => {
    const { w, ref, ada } = await heldWorld();
    const call = await held(w, "mnote.page.edit", THREE, "k_edit");
    const proposalId = await idOf(w, "k_edit");
    const mine = {
      id: "p1",
      type: "paragraph" as const,
      text: "P1 on Monday",
      marks: [{ type: "bold" as const, start: 6, end: 12 }],
    };
    await ada.proposals.decide({
      ...ref,
      proposalId,
      decisions: [
        { index: 0, choice: "edit", block: mine },
        { index: 1, choice: "accept" },
        { index: 2, choice: "accept" },
      ],
    });
    expect((await w.kernel.getBlocks(w.ids.page)).find((b) => b.id === "p1")).toEqual(mine);
    const retry = await call.again();
    expect(retry.result).toMatchObject({
      decision: {
        status: "applied_with_edits",
        changes: [{ change: 0, outcome: "applied_with_edits", final: mine }, {}, {}],
      },
    });
  });
});

describe("conflicts: a change whose block moved on is a conflict on that change alone", () => {
  const TWO = {
    operations: [
      { op: "replace", blockId: "p1", text: "P1 by agent" },
      { op: "replace", blockId: "p2", text: "P2 by agent" },
    ],
  };

  it("Apply all applies the current change and leaves the conflict pending; the agent is told which block to read again", async () => {
    const { w, ref, ada } = await heldWorld();
    const call = await held(w, "mnote.page.edit", TWO, "k_two");
    const proposalId = await idOf(w, "k_two");
    expect(await personEdit(w, [{ op: "replace", blockId: "p1", text: "P1 by Ada" }])).toMatchObject({ ok: true });
    const card = await ada.proposals.get({ ...ref, proposalId });
    expect(card.changes.map((c) => c.state)).toEqual(["conflict", "pending"]);
    expect(card.changes[0]).toMatchObject({
      conflict: { reason: "block_changed", current: { id: "p1", text: "P1 by Ada" } },
      proposed: { kind: "update", before: { text: "First paragraph" }, after: { text: "P1 by agent" } },
      choices: ["keep_mine", "take_agents", "edit"],
    });
    const retry = await call.again();
    expect(retry.error).toEqual({ code: "mnote_tool_conflict", message: M.conflicted(["block p1"], true) });
    expect(await ada.proposals.approve({ ...ref, proposalId })).toMatchObject({ ok: true });
    // Never applied over the newer version of p1.
    expect(await texts(w)).toEqual(["Rollout", "P1 by Ada", "P2 by agent"]);
    // Accepting the conflict as if it were current is refused; keeping mine closes it.
    await expect(
      ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 0, choice: "accept" }] }),
    ).rejects.toThrow(/conflicts with a newer version/);
    const kept = await ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 0, choice: "keep_mine" }] });
    expect(kept.proposal).toMatchObject({ status: "applied_in_part" });
    expect(await texts(w)).toEqual(["Rollout", "P1 by Ada", "P2 by agent"]);
    expect((await call.again()).result).toMatchObject({
      decision: {
        changes: [
          { target: "block p1", outcome: "conflict", reason: "kept the page's newer version" },
          { outcome: "applied" },
        ],
      },
    });
  });

  it("take the agent's: a person's explicit choice writes the agent's version over the newer one", async () => {
    const { w, ref, ada } = await heldWorld();
    await held(w, "mnote.page.edit", TWO, "k_take");
    const proposalId = await idOf(w, "k_take");
    await personEdit(w, [{ op: "replace", blockId: "p1", text: "P1 by Ada" }]);
    await ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 0, choice: "take_agents" }] });
    expect(await texts(w)).toEqual(["Rollout", "P1 by agent", "Second paragraph"]);
  });

  it("every change kept as the person's: the agent hears a conflict naming the blocks, not a rejection", async () => {
    const { w, ref, ada } = await heldWorld();
    const call = await held(w, "mnote.page.update_title", { title: "Agent title" }, "k_title");
    const proposalId = await idOf(w, "k_title");
    await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "Ada's title" }),
      w.tokens.owner,
    );
    await ada.proposals.decide({ ...ref, proposalId, decisions: [{ index: 0, choice: "keep_mine" }] });
    expect((await call.again()).error).toEqual({
      code: "mnote_tool_conflict",
      message: M.conflicted(["title"], false),
    });
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Ada's title");
  });
});

describe("a held call's key is one intended call", () => {
  it("another payload under a held key is mnote_tool_idempotency_conflict and records no proposal", async () => {
    const { w } = await heldWorld();
    await held(w, "mnote.page.update_title", { title: "First idea" }, "k_same");
    const before = await w.kernel.admin.tableSnapshot();
    const other = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "Second idea" }, { idempotencyKey: "k_same", runId: "run_agent" }),
      w.tokens.ownerAgent,
    );
    expect(other.error).toEqual({ code: "mnote_tool_idempotency_conflict", message: M.idempotencyConflict });
    const after = await w.kernel.admin.tableSnapshot();
    expect(after.proposals).toEqual(before.proposals);
    expect(after.audit_log!.at(-1)).toMatchObject({ outcome: "failed", error_code: "mnote_tool_idempotency_conflict" });
  });
});

describe("revert takes back exactly one write", () => {
  async function agentWrites() {
    const w = await createWorld();
    await withBody(w, BODY);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const agent = (operations: unknown[], key: string) =>
      w.call(
        "mnote.page.edit",
        w.envelope("mnote.page.edit", { operations }, { idempotencyKey: key }),
        w.tokens.ownerAgent,
      );
    return { w, ref, agent, ada: panelAs(w, w.tokens.owner) };
  }

  it("reverting Alpha after Beta was inserted after it deletes Alpha only", async () => {
    const { w, ref, agent, ada } = await agentWrites();
    const alpha = await agent(
      [{ op: "insert", after: "h1", blocks: [{ id: "alpha", type: "paragraph", text: "Alpha line" }] }],
      "a",
    );
    await agent(
      [{ op: "insert", after: "alpha", blocks: [{ id: "beta", type: "paragraph", text: "Beta line" }] }],
      "b",
    );
    const revert = await ada.page.revert({ ...ref, commandId: alpha.audit.commandId! });
    const proposal = await ada.proposals.get({ ...ref, proposalId: revert.proposalId! });
    expect(proposal.changes.map((c) => [c.proposed.kind, c.state])).toEqual([["delete", "pending"]]);
    expect(proposal.changes[0]!.description).toBe("deleted 'Alpha line'");
    expect(await ada.proposals.approve({ ...ref, proposalId: revert.proposalId! })).toMatchObject({ ok: true });
    expect(await texts(w)).toEqual(["Rollout", "Beta line", "First paragraph", "Second paragraph"]);
    // Each trail row says what its write did, in words.
    const writes = (await ada.audit.list(ref)).filter((r) => r.effect === "write" && r.identity.toolName !== "setup");
    expect(writes.map((r) => r.description).reverse()).toEqual([
      "inserted 'Alpha line' after 'Rollout'",
      "inserted 'Beta line' after 'Alpha line'",
      "deleted 'Alpha line'",
    ]);
  });

  it("a write applied change by change from an agent's proposal is an AI write a person may revert", async () => {
    const { w, ref, ada } = await heldWorld();
    await held(w, "mnote.page.edit", { operations: [{ op: "replace", blockId: "p1", text: "P1 by agent" }] }, "k_rev");
    const proposalId = await idOf(w, "k_rev");
    await personEdit(w, [{ op: "replace", blockId: "p2", text: "P2 by Ada" }]);
    const decided = await ada.proposals.decide({
      ...ref,
      proposalId,
      decisions: [
        { index: 0, choice: "edit", block: { id: "p1", type: "paragraph", text: "P1 by Ada, from the agent's" } },
      ],
    });
    const [row] = (await ada.audit.list(ref)).filter((r) => r.commandId === decided.envelope!.audit.commandId);
    expect(row).toMatchObject({
      aiWrite: true,
      revertable: true,
      description: "changed 'First paragraph' to 'P1 by Ada, from the agent's'",
      decision: { proposalId, proposer: { holder: "agent" } },
    });
    const revert = await ada.page.revert({ ...ref, commandId: row!.commandId! });
    expect(await ada.proposals.approve({ ...ref, proposalId: revert.proposalId! })).toMatchObject({ ok: true });
    expect(await texts(w)).toEqual(["Rollout", "First paragraph", "P2 by Ada"]);
  });

  it("a block a later write changed is a conflict in the revert, never overwritten; untouched blocks are restored", async () => {
    const { w, ref, agent, ada } = await agentWrites();
    const write = await agent(
      [
        { op: "replace", blockId: "p1", text: "W1" },
        { op: "replace", blockId: "p2", text: "X1" },
      ],
      "w",
    );
    await personEdit(w, [{ op: "replace", blockId: "p1", text: "W2 by Ada" }]);
    const revert = await ada.page.revert({ ...ref, commandId: write.audit.commandId! });
    const proposal = await ada.proposals.get({ ...ref, proposalId: revert.proposalId! });
    expect(proposal.changes.map((c) => [c.anchor, c.state])).toEqual([
      [{ kind: "block", blockId: "p1" }, "conflict"],
      [{ kind: "block", blockId: "p2" }, "pending"],
    ]);
    expect(await ada.proposals.approve({ ...ref, proposalId: revert.proposalId! })).toMatchObject({ ok: true });
    expect(await texts(w)).toEqual(["Rollout", "W2 by Ada", "Second paragraph"]);
    // The conflict is reviewed on its own: keeping Ada's version closes the revert.
    const done = await ada.proposals.decide({
      ...ref,
      proposalId: revert.proposalId!,
      decisions: [{ index: 0, choice: "keep_mine" }],
    });
    expect(done.proposal).toMatchObject({ status: "applied_in_part" });
    expect(await texts(w)).toEqual(["Rollout", "W2 by Ada", "Second paragraph"]);
  });
});
