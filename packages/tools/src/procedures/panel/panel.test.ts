import { describe, expect, it } from "vitest";
import { createWorld } from "../../test-support";
import { agentDryRun, panelAs } from "./test-panel";

describe("panel: proposals, decisions and the audit trail", () => {
  it("lists an agent's dry run and applies exactly it on approval", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const proposed = await agentDryRun(w, "mnote.page.save", {
      content: [{ type: "paragraph", text: "from the agent" }],
      mode: "append",
    });
    const [proposal] = await panel.proposals.list(ref);
    expect(proposal).toMatchObject({
      toolName: "mnote.page.save",
      status: "pending",
      changeCounts: { pending: 1, conflict: null, applied: 0, rejected: 0 },
      runId: "run_agent",
      toolCallId: proposed.toolCallId,
      idempotencyKey: proposed.idempotencyKey,
      baseRevision: 1,
      summary: { diff: [{ op: "append", blocks: 1 }], changeCount: 1 },
    });
    // The list carries summaries; one proposal's args and full preview come on demand.
    expect(proposal).not.toHaveProperty("preview");
    expect(proposal).not.toHaveProperty("args");
    expect(await panel.proposals.get({ ...ref, proposalId: proposal!.id })).toMatchObject({
      id: proposal!.id,
      status: "pending",
      args: { mode: "append" },
      preview: {
        baseRevision: 1,
        diff: [{ op: "append", blocks: 1 }],
        changes: [{ kind: "insert", block: { text: "from the agent" } }],
      },
    });
    const applied = await panel.proposals.approve({ ...ref, proposalId: proposal!.id });
    expect(applied).toMatchObject({ ok: true, result: { revision: 2 }, audit: { effect: "write" } });
    const view = await panel.page.view(ref);
    expect(view.blocks.at(-1)?.text).toBe("from the agent");
    const [after] = await panel.proposals.list(ref);
    expect(after).toMatchObject({ status: "applied", commandId: applied.audit.commandId });
    const trail = await panel.audit.list({ ...ref, traceId: proposed.traceId });
    expect(trail.map((r) => r.effect)).toEqual(expect.arrayContaining(["dry_run", "write"]));
    const command = await panel.command.get({ ...ref, commandId: applied.audit.commandId! });
    expect(command).toMatchObject({
      name: "page.body.save",
      revisionBefore: 1,
      revisionAfter: 2,
      who: { actorId: w.ids.owner, actorName: "owner", holder: "person" },
    });
    await expect(panel.proposals.approve({ ...ref, proposalId: proposal!.id })).rejects.toThrow(/already applied/);
  });

  it("records a rejection and writes nothing", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await agentDryRun(w, "mnote.page.update_title", { title: "Agent title" });
    const [proposal] = await panel.proposals.list(ref);
    const before = await w.kernel.admin.tableSnapshot();
    await panel.proposals.reject({ ...ref, proposalId: proposal!.id, reason: "not now" });
    const after = await w.kernel.admin.tableSnapshot();
    // The audit log gains the rejection and its proposals index marks the proposal rejected; nothing else moves.
    expect({ ...after, audit_log: [], proposals: [] }).toEqual({ ...before, audit_log: [], proposals: [] });
    expect(after.audit_log!.length).toBe(before.audit_log!.length + 1);
    expect(after.proposals).toEqual([expect.objectContaining({ audit_id: proposal!.id, status: "rejected" })]);
    expect((await panel.proposals.list(ref))[0]).toMatchObject({ status: "rejected" });
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Project plan");
  });

  it("a title proposal whose title changed since is a conflict on that change: approve writes nothing", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await agentDryRun(w, "mnote.page.update_title", { title: "Agent title" });
    await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "Human title" }));
    const [proposal] = (await panel.proposals.list(ref)).filter((p) => p.status === "pending");
    const full = await panel.proposals.get({ ...ref, proposalId: proposal!.id });
    expect(full.changes).toMatchObject([
      {
        state: "conflict",
        anchor: { kind: "title" },
        conflict: { reason: "value_changed", current: "Human title" },
        choices: ["keep_mine", "take_agents"],
      },
    ]);
    await expect(panel.proposals.approve({ ...ref, proposalId: proposal!.id })).rejects.toThrow(/conflicts/);
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Human title");
  });

  it("applies a selection of block changes in one server step", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    // Current page: h1 "Plan", p1 "First paragraph". Proposal: edit p1, delete h1, insert p2.
    await agentDryRun(w, "mnote.page.save", {
      content: [
        { id: "p1", type: "paragraph", text: "First paragraph, edited" },
        { id: "p2", type: "paragraph", text: "Second paragraph" },
      ],
    });
    const [listed] = await panel.proposals.list(ref);
    const proposal = await panel.proposals.get({ ...ref, proposalId: listed!.id });
    const kinds = proposal.preview.changes.map((c) => c.kind);
    expect(kinds.sort()).toEqual(["delete", "insert", "update"]);
    const keepInsertOnly = proposal.preview.changes.flatMap((c, i) => (c.kind === "insert" ? [i] : []));
    const applied = await panel.proposals.applyPart({ ...ref, proposalId: proposal.id, keep: keepInsertOnly });
    expect(applied).toMatchObject({ ok: true, audit: { effect: "write" }, result: { revision: 2 } });
    const view = await panel.page.view(ref);
    expect(view.blocks.map((b) => [b.id, b.text])).toEqual([
      ["h1", "Plan"],
      ["p1", "First paragraph"],
      ["p2", "Second paragraph"],
    ]);
    expect(await panel.proposals.list(ref)).toEqual([
      expect.objectContaining({
        id: proposal.id,
        status: "applied_in_part",
        part: { kept: 1, total: 3 },
        commandId: applied.audit.commandId,
      }),
    ]);
  });

  it("proposes a revert of an applied AI write from its command id alone, and applies it on approval", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const write = await w.call(
      "mnote.page.save",
      w.envelope("mnote.page.save", { content: [{ id: "x", type: "quote", text: "AI" }] }),
      w.tokens.ownerAgent,
    );
    expect(write.ok).toBe(true);
    const commandId = write.audit.commandId!;
    const dry = await panel.page.revert({ ...ref, commandId });
    expect(dry.envelope).toMatchObject({
      ok: true,
      audit: { effect: "dry_run" },
      result: { commandName: "page.revert", baseRevision: 2 },
    });
    expect((await panel.page.view(ref)).page.revision).toBe(2);
    // The server built the call: the person's session, on the reverted write's trace; a second click is the same edit, listed once.
    const again = await panel.page.revert({ ...ref, commandId });
    expect(again.envelope.ok).toBe(true);
    const pending = (await panel.proposals.list(ref)).filter((p) => p.status === "pending");
    expect(pending).toEqual([
      expect.objectContaining({
        id: again.proposalId,
        toolName: "panel.page.revert",
        traceId: "trace_1",
        runId: "panel",
        who: expect.objectContaining({ holder: "person" }),
      }),
    ]);
    const done = await panel.proposals.approve({ ...ref, proposalId: again.proposalId! });
    expect(done).toMatchObject({ ok: true, audit: { effect: "write" }, result: { revision: 3 } });
    expect((await panel.page.view(ref)).blocks.map((b) => b.id)).toEqual(["h1", "p1"]);
    // Once reverted, the write is not reverted again (issue 20: that was an empty proposal whose approval wrote a no-op).
    await expect(panel.page.revert({ ...ref, commandId })).rejects.toThrow(/already reverted/);
    // Nobody reverts what is not on their page, and a viewer reverts nothing.
    await expect(panel.page.revert({ ...ref, commandId: "cmd_elsewhere" })).rejects.toThrow(/no such command/);
    await expect(panelAs(w, w.tokens.viewer).page.revert({ ...ref, commandId })).rejects.toThrow(/write permission/);
  });

  it("holds agent page writes when the workspace asks for approval, and replays after approval", async () => {
    const w = await createWorld();
    await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const envelope = w.envelope("mnote.page.update_title", { title: "Held title" });
    const held = await w.call("mnote.page.update_title", envelope, w.tokens.ownerAgent);
    expect(held).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Project plan");
    const [proposal] = await panel.proposals.list(ref);
    expect(proposal).toMatchObject({ held: true, status: "pending" });
    const applied = await panel.proposals.approve({ ...ref, proposalId: proposal!.id });
    expect(applied.ok).toBe(true);
    // The person wrote it, but it is the agent's edit: the audit trail marks it as an AI write (Revert is offered).
    const write = (await panel.audit.list(ref)).find(
      (r) => r.commandId === applied.audit.commandId && r.effect === "write",
    );
    expect(write).toMatchObject({ aiWrite: true, identity: { holder: "person" } });
    const human = await w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: "By hand" }));
    expect((await panel.audit.list(ref)).find((r) => r.commandId === human.audit.commandId)?.aiWrite).toBe(false);
    const retry = await w.call("mnote.page.update_title", { ...envelope, toolCallId: "retry" }, w.tokens.ownerAgent);
    expect(retry).toMatchObject({ ok: true, audit: { commandId: applied.audit.commandId } });
  });

  it("is closed to agent tokens and shows nothing of pages a person may not read", async () => {
    const w = await createWorld();
    await expect(panelAs(w, w.tokens.ownerAgent).session.me()).rejects.toThrow(/people/);
    await expect(panelAs(w, "mnt_nope").session.me()).rejects.toThrow(/sign in/);
    const stranger = panelAs(w, w.tokens.stranger);
    const hidden = { workspaceId: w.ids.ws, documentId: w.ids.privatePage };
    const missing = { workspaceId: w.ids.ws, documentId: "doc_missing" };
    const errors = await Promise.all(
      [hidden, missing].map((ref) =>
        stranger.page.view(ref).then(
          () => null,
          (e: Error) => e.message,
        ),
      ),
    );
    expect(errors[0]).toBe(errors[1]);
    expect(errors[0]).not.toContain(w.SECRET);
    const viewer = panelAs(w, w.tokens.viewer);
    await expect(viewer.audit.list(hidden)).rejects.toThrow("page not found or not readable");
    const pages = await viewer.pages.list({ workspaceId: w.ids.ws });
    expect(pages.map((p) => p.id)).toEqual([w.ids.page]);
  });
});

describe("panel: who decides, and proposals whatever the audit volume", () => {
  it("only whoever may approve may reject: a viewer, or a session without page.write, is refused and nothing is written", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await agentDryRun(w, "mnote.page.update_title", { title: "Agent title" });
    const [proposal] = await panelAs(w, w.tokens.owner).proposals.list(ref);
    const readOnly = (await w.newToken(w.ids.owner, ["page.read"])).token;
    for (const token of [w.tokens.viewer, readOnly]) {
      const before = await w.kernel.admin.tableSnapshot();
      await expect(panelAs(w, token).proposals.reject({ ...ref, proposalId: proposal!.id })).rejects.toThrow(
        /write permission|scopes/,
      );
      expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
      // The same person may not approve it either, refused the same way (one rule: `decidableProposal`).
      await expect(panelAs(w, token).proposals.approve({ ...ref, proposalId: proposal!.id })).rejects.toThrow(
        /write permission|scopes/,
      );
      expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
    }
    // The viewer still sees it, pending.
    expect((await panelAs(w, w.tokens.viewer).proposals.list(ref))[0]).toMatchObject({
      id: proposal!.id,
      status: "pending",
    });
    await panelAs(w, w.tokens.editor).proposals.reject({ ...ref, proposalId: proposal!.id });
    expect((await panelAs(w, w.tokens.owner).proposals.list(ref))[0]).toMatchObject({ status: "rejected" });
  });

  it("keeps every pending proposal and held write after more than 1,000 other calls on the page, forged ones included", async () => {
    const w = await createWorld();
    await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const dryRun = await agentDryRun(w, "mnote.page.save", {
      content: [{ type: "paragraph", text: "proposed" }],
      mode: "append",
    });
    const heldCall = w.envelope("mnote.page.update_title", { title: "Held title" });
    expect(await w.call("mnote.page.update_title", heldCall, w.tokens.ownerAgent)).toMatchObject({
      error: { code: "mnote_tool_approval_required" },
    });
    // Calls without a valid token that claim Ada's identity and the proposals' run and trace …
    for (const forged of [dryRun, heldCall]) {
      await w.call(
        "mnote.page.update_title",
        { ...forged, toolName: "mnote.page.update_title", args: { title: "forged" } },
        "Bearer mnt_forged",
      );
    }
    // … and a viewer's 1,100 reads: the page's audit trail holds far more than the proposals.
    for (let i = 0; i < 1_100; i++) {
      await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { actorId: w.ids.viewer }), w.tokens.viewer);
    }
    const pending = (await panel.proposals.list(ref)).filter((p) => p.status === "pending");
    expect(pending.map((p) => [p.toolCallId, p.held])).toEqual([
      [heldCall.toolCallId, true],
      [dryRun.toolCallId, false],
    ]);
    // The forged calls are nobody's: not in the owner's trail, not on the proposals' trace.
    expect(await panel.audit.list({ ...ref, traceId: dryRun.traceId, limit: 500 })).not.toContainEqual(
      expect.objectContaining({ errorCode: "mnote_tool_unauthenticated" }),
    );
    expect(await panel.proposals.approve({ ...ref, proposalId: pending[0]!.id })).toMatchObject({ ok: true });
    expect((await w.kernel.getPage(w.ids.page))?.title).toBe("Held title");
  }, 120_000);

  it("answers one proposal in full only on its own page", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    await agentDryRun(w, "mnote.page.update_title", { title: "Agent title" });
    const [proposal] = await panel.proposals.list({ workspaceId: w.ids.ws, documentId: w.ids.page });
    await expect(
      panel.proposals.get({ workspaceId: w.ids.ws, documentId: w.ids.privatePage, proposalId: proposal!.id }),
    ).rejects.toThrow(/no such proposal/);
    const auditOnly =
      (await w.kernel.listAudit({ documentId: w.ids.page })).find((r) => r.outcome !== "proposal")?.id ??
      proposal!.id + 1;
    await expect(
      panel.proposals.get({ workspaceId: w.ids.ws, documentId: w.ids.page, proposalId: auditOnly }),
    ).rejects.toThrow(/no such proposal/);
  });
});
