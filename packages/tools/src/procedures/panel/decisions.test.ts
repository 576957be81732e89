import type { SqlKernel } from "@mnote/kernel";
import { describe, expect, it } from "vitest";
import { createWorld, type World } from "../../test-support";
import { agentDryRun, panelAs } from "./test-panel";

/** An agent token named "Hermes", as an operator issues one: `mnote admin token create --holder agent --label Hermes`. */
async function hermes(w: World) {
  return (
    await w.kernel.admin.createToken({
      userId: w.ids.owner,
      holder: "agent",
      scopes: ["page.read", "page.write", "artifact.write"],
      label: "Hermes",
    })
  ).token;
}

/** Proposal: h1 "Plan", p1 "First paragraph" become p1 edited, p2 inserted, h1 deleted — three changes. */
const THREE_CHANGES = {
  content: [
    { id: "p1", type: "paragraph", text: "First paragraph, edited" },
    { id: "p2", type: "paragraph", text: "Second paragraph" },
  ],
};

/** The world's kernel, with `before` run at the start of every `execute`: something happening between the cut and the write. */
function kernelWithRace(w: World, before: () => Promise<void>): SqlKernel {
  return new Proxy(w.kernel, {
    get(target, property, receiver) {
      if (property !== "execute") return Reflect.get(target, property, receiver) as unknown;
      return async (request: Parameters<SqlKernel["execute"]>[0]) => {
        await before();
        return target.execute(request);
      };
    },
  });
}

describe("panel: applying part of a proposal is one server step", () => {
  it("writes the kept changes and marks the proposal applied in part, with the left-out changes listable", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const proposed = await agentDryRun(w, "mnote.page.save", THREE_CHANGES, {}, await hermes(w));
    const [listed] = await panel.proposals.list(ref);
    const { preview } = await panel.proposals.get({ ...ref, proposalId: listed!.id });
    const keep = preview.changes.flatMap((c, i) => (c.kind === "delete" ? [] : [i]));
    const before = await w.kernel.admin.tableSnapshot();
    const applied = await panel.proposals.applyPart({ ...ref, proposalId: listed!.id, keep });
    expect(applied).toMatchObject({ ok: true, result: { revision: 2 }, audit: { effect: "write" } });
    expect((await w.kernel.getBlocks(w.ids.page)).map((b) => b.text)).toEqual([
      "Plan",
      "First paragraph, edited",
      "Second paragraph",
    ]);
    const after = await w.kernel.admin.tableSnapshot();
    // No proposal was recorded on the way: the index holds the same one row, now decided.
    expect(after.proposals).toEqual([
      expect.objectContaining({ audit_id: listed!.id, status: "applied", command_id: applied.audit.commandId }),
    ]);
    expect(after.audit_log!.length).toBe(before.audit_log!.length + 1);
    const decided = await panel.proposals.get({ ...ref, proposalId: listed!.id });
    expect(decided).toMatchObject({
      status: "applied_in_part",
      part: { kept: 2, total: 3 },
      decidable: false,
      partiallyApplicable: false,
    });
    expect(decided.leftOut.map((i) => decided.preview.changes[i]!.kind)).toEqual(["delete"]);
    // The write is on the agent's run and trace, names the proposal, its proposer and the part.
    const [write] = await panel.audit
      .list({ ...ref, runId: "run_agent" })
      .then((rows) => rows.filter((r) => r.effect === "write"));
    expect(write).toMatchObject({
      identity: { holder: "person", actorId: w.ids.owner, traceId: proposed.traceId, runId: "run_agent" },
      who: { actorName: "owner", holder: "person", agentName: null },
      decision: {
        proposalId: listed!.id,
        proposer: { holder: "agent", agentName: "Hermes", actorName: "owner" },
        part: { kept: 2, total: 3 },
      },
      aiWrite: true,
      revertable: true,
    });
    // Decided means decided: a second apply, or an approve, is refused and writes nothing.
    await expect(panel.proposals.applyPart({ ...ref, proposalId: listed!.id, keep: [0] })).rejects.toThrow(
      /already applied in part/,
    );
    await expect(panel.proposals.approve({ ...ref, proposalId: listed!.id })).rejects.toThrow(
      /already applied in part/,
    );
  });

  it("a failure in the middle leaves nothing half decided: the page moved, or the proposal was decided meanwhile", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await agentDryRun(w, "mnote.page.save", THREE_CHANGES);
    const [proposal] = await panelAs(w, w.tokens.owner).proposals.list(ref);

    // 1. Someone writes the page between the server's cut and its write: a conflict, the proposal stays pending.
    let moved = false;
    const movesPage = kernelWithRace(w, async () => {
      if (moved) return;
      moved = true;
      expect(
        (await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Moved" }))).ok,
      ).toBe(true);
    });
    let before = await w.kernel.admin.tableSnapshot();
    expect(
      await panelAs(w, w.tokens.owner, movesPage).proposals.applyPart({
        ...ref,
        proposalId: proposal!.id,
        keep: [0, 1],
      }),
    ).toMatchObject({
      ok: false,
      error: { code: "mnote_tool_conflict" },
    });
    let after = await w.kernel.admin.tableSnapshot();
    // Only the racing title write landed; no second proposal, the original still pending.
    expect(after.commands!.length).toBe(before.commands!.length + 1);
    expect(after.proposals).toEqual(before.proposals);
    expect(await w.kernel.getProposal(proposal!.id)).toMatchObject({ status: "pending", appliedPart: null });

    // 2. Another person rejects it between the cut and the write: the write rolls back with the decision.
    const w2 = await createWorld();
    const ref2 = { workspaceId: w2.ids.ws, documentId: w2.ids.page };
    await agentDryRun(w2, "mnote.page.save", THREE_CHANGES);
    const [other] = await panelAs(w2, w2.tokens.owner).proposals.list(ref2);
    const rejectsFirst = kernelWithRace(w2, async () => {
      await panelAs(w2, w2.tokens.editor).proposals.reject({ ...ref2, proposalId: other!.id, reason: "no" });
    });
    before = await w2.kernel.admin.tableSnapshot();
    expect(
      await panelAs(w2, w2.tokens.owner, rejectsFirst).proposals.applyPart({
        ...ref2,
        proposalId: other!.id,
        keep: [0, 1],
      }),
    ).toMatchObject({
      ok: false,
      error: { code: "mnote_tool_invalid_input", message: expect.stringMatching(/decided meanwhile/) },
    });
    after = await w2.kernel.admin.tableSnapshot();
    expect(after.commands).toEqual(before.commands);
    expect(after.blocks).toEqual(before.blocks);
    expect(after.idempotency).toEqual(before.idempotency);
    expect(await w2.kernel.getProposal(other!.id)).toMatchObject({
      status: "rejected",
      appliedPart: null,
      commandId: null,
    });
  });

  it("refuses what cannot be cut, writing nothing: other tools, bad indices, people who may not decide; an unrelated write leaves it current", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const panel = panelAs(w, w.tokens.owner);
    await agentDryRun(w, "mnote.page.save", THREE_CHANGES);
    await agentDryRun(w, "mnote.page.update_title", { title: "Agent title" });
    const [title, save] = await panel.proposals.list(ref);
    expect([title!.toolName, title!.partiallyApplicable, save!.toolName, save!.partiallyApplicable]).toEqual([
      "mnote.page.update_title",
      false,
      "mnote.page.save",
      true,
    ]);
    const before = await w.kernel.admin.tableSnapshot();
    await expect(panel.proposals.applyPart({ ...ref, proposalId: title!.id, keep: [0] })).rejects.toThrow(
      /only page.save and page.edit/,
    );
    await expect(panel.proposals.applyPart({ ...ref, proposalId: save!.id, keep: [0, 3] })).rejects.toThrow(
      /has 3 changes/,
    );
    await expect(panel.proposals.applyPart({ ...ref, proposalId: save!.id, keep: [] })).rejects.toThrow(
      /keep at least one change/,
    );
    const viewer = panelAs(w, w.tokens.viewer);
    expect((await viewer.proposals.list(ref)).map((p) => [p.decidable, p.partiallyApplicable])).toEqual([
      [false, false],
      [false, false],
    ]);
    await expect(viewer.proposals.applyPart({ ...ref, proposalId: save!.id, keep: [0] })).rejects.toThrow(
      /write permission/,
    );
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
    // A write elsewhere on the page (its title) leaves the body proposal current (decision 0030): it is cut and
    // applied change by change against the page now, nothing "stale".
    await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Human title" }));
    expect((await panel.proposals.list(ref)).find((p) => p.id === save!.id)).toMatchObject({
      changeCounts: { pending: 3, applied: 0, rejected: 0 },
      decidable: true,
      partiallyApplicable: true,
    });
    expect(await panel.proposals.applyPart({ ...ref, proposalId: save!.id, keep: [0] })).toMatchObject({ ok: true });
    expect((await panel.proposals.get({ ...ref, proposalId: save!.id })).changes.map((c) => c.state)).toEqual([
      "applied",
      "rejected",
      "rejected",
    ]);
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Human title");
  });

  it("keeping every change applies the proposal as shown, as Approve does", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const panel = panelAs(w, w.tokens.owner);
    const proposed = await agentDryRun(w, "mnote.page.save", THREE_CHANGES);
    const [proposal] = await panel.proposals.list(ref);
    const applied = await panel.proposals.applyPart({ ...ref, proposalId: proposal!.id, keep: [2, 1, 0, 1] });
    expect(applied).toMatchObject({ ok: true, result: { revision: 2 } });
    expect((await panel.proposals.list(ref))[0]).toMatchObject({ status: "applied", part: null });
    // The agent retrying its own call now replays the approved write.
    const retry = await w.call(
      "mnote.page.save",
      { ...proposed, dryRun: false, toolCallId: "retry" },
      w.tokens.ownerAgent,
    );
    expect(retry).toMatchObject({ ok: true, audit: { commandId: applied.audit.commandId } });
  });
});

describe("panel: what a person may do, answered by the server", () => {
  it("revertable: an applied AI write that changed the page, for someone who may write it", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const agentWrite = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "By the agent" }),
      w.tokens.ownerAgent,
    );
    const personWrite = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "By hand" }),
    );
    const artifact = await w.call(
      "mnote.artifact.create_summary",
      w.envelope("mnote.artifact.create_summary", { summary: "S" }),
      w.tokens.ownerAgent,
    );
    // The summary's author by name, too (the artifacts tab shows people, not ids).
    expect((await panelAs(w, w.tokens.viewer).artifacts.list(ref)).nodes).toEqual([
      expect.objectContaining({ kind: "summary", createdBy: w.ids.owner, createdByName: "owner" }),
    ]);
    const refused = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "x".repeat(500) }),
      w.tokens.ownerAgent,
    );
    await agentDryRun(w, "mnote.page.update_title", { title: "Approved" });
    const [proposal] = await panelAs(w, w.tokens.owner).proposals.list(ref);
    const approved = await panelAs(w, w.tokens.owner).proposals.approve({ ...ref, proposalId: proposal!.id });
    const revertableBy = async (token: string) => {
      const rows = await panelAs(w, token).audit.list(ref);
      const of = (commandId: string | null) =>
        rows.find((r) => r.commandId === commandId && r.effect === "write")?.revertable;
      return {
        agentWrite: of(agentWrite.audit.commandId),
        personWrite: of(personWrite.audit.commandId),
        artifact: of(artifact.audit.commandId),
        approved: of(approved.audit.commandId),
        failedOrRead: rows.filter((r) => r.effect !== "write").some((r) => r.revertable),
      };
    };
    expect(refused.ok).toBe(false);
    expect(await revertableBy(w.tokens.owner)).toEqual({
      agentWrite: true,
      personWrite: false,
      artifact: false,
      approved: true,
      failedOrRead: false,
    });
    expect(await revertableBy(w.tokens.viewer)).toEqual({
      agentWrite: false,
      personWrite: false,
      artifact: false,
      approved: false,
      failedOrRead: false,
    });
    const readOnlySession = (await w.newToken(w.ids.owner, ["page.read"])).token;
    expect((await revertableBy(readOnlySession)).agentWrite).toBe(false);
  });

  it("names people and agents: 'owner approved Hermes's proposal', with the raw ids kept, and the agent's run shows the approval", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const named = await hermes(w);
    const proposed = await agentDryRun(
      w,
      "mnote.page.update_title",
      { title: "Agent title" },
      { runId: "run_hermes_7" },
      named,
    );
    const unnamed = await agentDryRun(
      w,
      "mnote.page.update_options",
      { options: { wideLayout: true } },
      { runId: "run_other" },
    );
    const panel = panelAs(w, w.tokens.editor);
    const proposals = await panel.proposals.list(ref);
    const byCall = (id: string) => proposals.find((p) => p.toolCallId === id)!;
    expect(byCall(proposed.toolCallId).who).toEqual({
      actorId: w.ids.owner,
      actorName: "owner",
      holder: "agent",
      tokenId: expect.any(String),
      agentName: "Hermes",
    });
    expect(byCall(unnamed.toolCallId).who).toMatchObject({ actorName: "owner", holder: "agent", agentName: null });
    expect(byCall(proposed.toolCallId).at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const approved = await panel.proposals.approve({ ...ref, proposalId: byCall(proposed.toolCallId).id });
    await panel.proposals.reject({ ...ref, proposalId: byCall(unnamed.toolCallId).id, reason: "not now" });
    // Filtering by the agent's run shows its dry run and the editor's approved write.
    const run = await panel.audit.list({ ...ref, runId: "run_hermes_7" });
    expect(run.map((r) => [r.effect, r.who.actorName, r.who.agentName])).toEqual([
      ["write", "editor", null],
      ["dry_run", "owner", "Hermes"],
    ]);
    expect(run[0]).toMatchObject({
      commandId: approved.audit.commandId,
      identity: {
        runId: "run_hermes_7",
        traceId: proposed.traceId,
        actorId: w.ids.editor,
        sessionId: expect.stringMatching(/^panel_/),
      },
      decision: {
        proposalId: byCall(proposed.toolCallId).id,
        proposer: { agentName: "Hermes", actorName: "owner", actorId: w.ids.owner },
        part: null,
      },
    });
    const [rejection] = await panel.audit.list({ ...ref, runId: "run_other" });
    expect(rejection).toMatchObject({
      outcome: "rejected",
      who: { actorName: "editor" },
      decision: { proposer: { holder: "agent", agentName: null } },
    });
    expect((await panel.proposals.list(ref)).map((p) => [p.status, p.decidedAt === null])).toEqual([
      ["rejected", false],
      ["applied", false],
    ]);
  });
});
