import { describe, expect, it } from "vitest";
import { createWorld } from "../../test-support";
import { panelAs } from "./test-panel";

/** Issue 20 item 4: owners choose what the policy holds — page writes (the default), or artifacts too. */
describe("the approval policy can hold agents' artifacts", () => {
  const note = (w: Awaited<ReturnType<typeof createWorld>>, content: string, overrides = {}) =>
    w.call(
      "mnote.artifact.create_ai_note",
      w.envelope("mnote.artifact.create_ai_note", { content }, overrides),
      w.tokens.ownerAgent,
    );

  it("pages only by default: with the hold on, an agent's AI note still applies at once", async () => {
    const w = await createWorld();
    await panelAs(w, w.tokens.owner).workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: true });
    const view = await panelAs(w, w.tokens.owner).page.view({ workspaceId: w.ids.ws, documentId: w.ids.page });
    expect(view.workspace).toMatchObject({ approvalRequired: true, holdArtifacts: false });
    expect((await note(w, "straight through")).ok).toBe(true);
    expect((await w.kernel.listArtifacts(w.ids.page)).nodes).toHaveLength(1);
  });

  it("pages + artifacts: a held AI note is a proposal (dry run, approve, reject with a reason), and the change is audited", async () => {
    const w = await createWorld();
    const owner = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await owner.workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: true, holdArtifacts: true });
    expect((await owner.page.view(ref)).workspace).toMatchObject({ approvalRequired: true, holdArtifacts: true });
    const [change] = await owner.workspace.policyHistory({ workspaceId: w.ids.ws });
    expect(change).toMatchObject({
      by: w.ids.owner,
      via: "panel",
      from: { approvalRequired: false, holdArtifacts: false },
      to: { approvalRequired: true, holdArtifacts: true },
    });

    // A real write is held: nothing published, a pending held proposal instead.
    const held = await note(w, "copied from elsewhere");
    expect(held).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect((await w.kernel.listArtifacts(w.ids.page)).nodes).toEqual([]);
    const [proposal] = await owner.proposals.list(ref);
    expect(proposal).toMatchObject({ toolName: "mnote.artifact.create_ai_note", held: true, status: "pending" });
    const applied = await owner.proposals.approve({ ...ref, proposalId: proposal!.id });
    expect(applied.ok).toBe(true);
    expect((await w.kernel.listArtifacts(w.ids.page)).nodes).toHaveLength(1);

    // Rejected with a reason: nothing written, and the agent's retry hears the reason.
    const envelope = w.envelope("mnote.artifact.create_ai_note", { content: "the other page's secrets" });
    expect((await w.call("mnote.artifact.create_ai_note", envelope, w.tokens.ownerAgent)).ok).toBe(false);
    const second = (await owner.proposals.list(ref)).find((p) => p.status === "pending")!;
    await owner.proposals.reject({ ...ref, proposalId: second.id, reason: "not from another page" });
    const retry = await w.call(
      "mnote.artifact.create_ai_note",
      { ...envelope, toolCallId: "retry" },
      w.tokens.ownerAgent,
    );
    expect(retry).toMatchObject({ ok: false, error: { code: "mnote_tool_rejected" } });
    expect(retry.error!.message).toContain("not from another page");
    expect((await w.kernel.listArtifacts(w.ids.page)).nodes).toHaveLength(1);

    // A dry run is a proposal, as for page writes; a person's own note is never held.
    const dry = await note(w, "proposed", { dryRun: true });
    expect(dry).toMatchObject({ ok: true, audit: { effect: "dry_run" } });
    const own = await w.call(
      "mnote.artifact.create_ai_note",
      w.envelope("mnote.artifact.create_ai_note", { content: "mine" }),
      w.tokens.owner,
    );
    expect(own.ok).toBe(true);
  });

  it("an editor cannot change what the policy holds", async () => {
    const w = await createWorld();
    await expect(
      panelAs(w, w.tokens.editor).workspace.setApproval({
        workspaceId: w.ids.ws,
        approvalRequired: true,
        holdArtifacts: true,
      }),
    ).rejects.toThrow(/only a workspace owner/);
  });
});
