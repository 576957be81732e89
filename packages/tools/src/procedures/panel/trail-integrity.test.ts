import { describe, expect, it } from "vitest";
import { createWorld } from "../../test-support";
import { panelAs } from "./test-panel";

/** Issue 20 item 3: the audit trail holds only what happened to it, and a revert the rules forbid is refused. */
describe("a refusal of a caller who may not read the page stays out of its trail", () => {
  it("a stranger's page.get naming Ada's conversation and an injected run id: in no trail, no conversation, no feed", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const owner = panelAs(w, w.tokens.owner);
    const conversation = `mnote_${w.ids.page}_trace_ada`;
    const { cursor: before } = await owner.page.activity(ref);
    const trailBefore = await owner.audit.list(ref);

    const refused = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { actorId: w.ids.stranger, sessionId: conversation, runId: "INJECTED-BY-DEE" }),
      w.tokens.stranger,
    );
    expect(refused).toMatchObject({ ok: false, error: { code: "mnote_tool_permission_denied" } });

    expect((await owner.page.activity(ref)).cursor).toBe(before);
    expect(await owner.audit.list(ref)).toEqual(trailBefore);
    expect(await owner.audit.list({ ...ref, sessionId: conversation })).toEqual([]);
    expect(await w.kernel.listAudit({ runId: "INJECTED-BY-DEE" })).toEqual([]);
    // Kept for operators: who it was (the token vouches for that), and what it named, as claims.
    const [record] = await w.kernel.listAudit({ limit: 1 });
    expect(record).toMatchObject({
      outcome: "failed",
      errorCode: "mnote_tool_permission_denied",
      identity: {
        actorId: w.ids.stranger,
        workspaceId: "",
        documentId: "",
        sessionId: null,
        runId: null,
        toolCallId: null,
        traceId: null,
      },
      detail: {
        unverifiedClaims: {
          workspaceId: w.ids.ws,
          documentId: w.ids.page,
          sessionId: conversation,
          runId: "INJECTED-BY-DEE",
        },
      },
    });
  });

  it("a member who may not read a private page, and a stranger's bad envelope: the same", async () => {
    const w = await createWorld();
    const privateRef = { workspaceId: w.ids.ws, documentId: w.ids.privatePage };
    const { cursor: before } = await panelAs(w, w.tokens.owner).page.activity(privateRef);
    const viewer = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { ...privateRef, actorId: w.ids.viewer, runId: "viewer_run" }),
      w.tokens.viewer,
    );
    expect(viewer.ok).toBe(false);
    const bad = await w.call(
      "mnote.page.save",
      { ...w.envelope("mnote.page.save", { content: "not blocks" }), actorId: w.ids.stranger, runId: "bad_run" },
      w.tokens.stranger,
    );
    expect(bad).toMatchObject({ ok: false, error: { code: "mnote_tool_invalid_input" } });
    expect((await panelAs(w, w.tokens.owner).page.activity(privateRef)).cursor).toBe(before);
    for (const runId of ["viewer_run", "bad_run"]) expect(await w.kernel.listAudit({ runId })).toEqual([]);
    expect(await w.kernel.listAudit({ documentId: w.ids.page, limit: 5 })).toEqual(
      expect.not.arrayContaining([
        expect.objectContaining({ identity: expect.objectContaining({ runId: "bad_run" }) }),
      ]),
    );
  });

  it("a member's own refusal (a viewer's write) is still in the page's trail: it happened to the page", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const denied = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "no" }, { actorId: w.ids.viewer, runId: "viewer_write" }),
      w.tokens.viewer,
    );
    expect(denied.ok).toBe(false);
    const trail = await panelAs(w, w.tokens.owner).audit.list({ ...ref, runId: "viewer_write" });
    expect(trail).toHaveLength(1);
    expect(trail[0]!.identity).toMatchObject({ actorId: w.ids.viewer, documentId: w.ids.page });
  });
});

describe("panel.page.revert enforces the server's revertable rule", () => {
  it("refuses an AI note, a write already reverted and a revert; the trail's revertable agrees", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const editor = panelAs(w, w.tokens.editor);
    const note = await w.call(
      "mnote.artifact.create_ai_note",
      w.envelope("mnote.artifact.create_ai_note", { content: "from the agent" }),
      w.tokens.ownerAgent,
    );
    expect(note.ok).toBe(true);
    await expect(editor.page.revert({ ...ref, commandId: note.audit.commandId! })).rejects.toThrow(/AI note/);

    const write = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "Agent's title" }),
      w.tokens.ownerAgent,
    );
    const proposed = await editor.page.revert({ ...ref, commandId: write.audit.commandId! });
    const reverted = await editor.proposals.approve({ ...ref, proposalId: proposed.proposalId! });
    expect(reverted.ok).toBe(true);
    const revisionAfterRevert = (await editor.page.view(ref)).page.revision;
    await expect(editor.page.revert({ ...ref, commandId: write.audit.commandId! })).rejects.toThrow(/already reverted/);
    await expect(editor.page.revert({ ...ref, commandId: reverted.audit.commandId! })).rejects.toThrow(/a revert/);
    // Nothing was proposed or written by the refusals.
    expect((await editor.proposals.list(ref)).filter((p) => p.status === "pending")).toEqual([]);
    expect((await editor.page.view(ref)).page.revision).toBe(revisionAfterRevert);

    const trail = await editor.audit.list(ref);
    const revertable = (commandId: string | null | undefined) =>
      trail.filter((r) => r.commandId === commandId && r.effect === "write").map((r) => r.revertable);
    expect(revertable(note.audit.commandId)).toEqual([false]);
    expect(revertable(write.audit.commandId)).toEqual([false]);
    expect(revertable(reverted.audit.commandId)).toEqual([false]);
  });
});
