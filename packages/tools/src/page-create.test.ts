import { TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { newPageId } from "./new-page";
import { expectFailure, expectOk, expectOnlyAuditGrew, snapshot, useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";
import type { World } from "./test-support";
import { panelAs } from "./procedures/panel/test-panel";

/**
 * mnote.page.create (issue 34 item 2, decision 0046): the contract the suites over every page tool run for the others
 * — checks, dry run, key, approval — for the one write that makes its page.
 */
const ARGS = { title: "Outage runbook", markdown: "# Steps\n\n- [ ] page the on-call\n- [ ] open the status page" };

const create = (w: World, args: Record<string, unknown>, overrides: Record<string, unknown> = {}, token?: string) =>
  w.call("mnote.page.create", w.envelope("mnote.page.create", args, overrides), token ?? w.tokens.owner);

describe.each(testKernels())("mnote.page.create ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("creates the page its key names, with the body the Markdown says; the command is traceable to it", async () => {
    const w = await world();
    const out = await create(w, ARGS, { idempotencyKey: "create-1" }, w.tokens.ownerAgent);
    const result = expectOk<{ documentId: string; revision: number; commandName: string }>(out, "write");
    // The answer is a workspace tool's: it names the workspace and no page; the result names the new page.
    expect(out.audit).toMatchObject({ workspaceId: w.ids.ws, documentId: null });
    expect(result).toEqual({
      commandName: "page.create",
      documentId: newPageId(w.ids.ws, w.ids.owner, "create-1"),
      revision: 1,
    });
    const page = await w.kernel.getPage(result.documentId);
    expect(page).toMatchObject({ workspaceId: w.ids.ws, title: "Outage runbook", isPrivate: false, revision: 1 });
    expect((await w.kernel.getBlocks(result.documentId)).map(({ type, text }) => [type, text])).toEqual([
      ["heading", "Steps"],
      ["todo", "page the on-call"],
      ["todo", "open the status page"],
    ]);
    const command = await w.kernel.getCommand(out.audit.commandId!);
    expect(command?.identity).toMatchObject({ toolName: "mnote.page.create", documentId: result.documentId });
    // Any member reads the new page with the page tools, by the id the result named.
    const read = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { documentId: result.documentId, actorId: w.ids.viewer }),
      w.tokens.viewer,
    );
    expect(expectOk<{ title: string }>(read, "read").title).toBe("Outage runbook");
  });

  it("a dry run answers the whole new page and creates nothing; the real call creates what it showed", async () => {
    const w = await world();
    const before = await snapshot(w);
    const dry = await create(w, ARGS, { idempotencyKey: "create-2", dryRun: true });
    const preview = expectOk<{ plan: string[]; changes: { kind: string }[] }>(dry, "dry_run");
    expect(preview.plan[0]).toMatch(/^create a page "Outage runbook" with 3 blocks/);
    expect(preview.changes.map((change) => change.kind)).toEqual(["set_title", "insert", "insert", "insert"]);
    await expectOnlyAuditGrew(w, before);
    const documentId = newPageId(w.ids.ws, w.ids.owner, "create-2");
    expect(await w.kernel.getPage(documentId)).toBeNull();

    const real = expectOk<{ documentId: string }>(await create(w, ARGS, { idempotencyKey: "create-2" }), "write");
    expect(real.documentId).toBe(documentId);
    const shown = preview.changes.flatMap((change) => ("block" in change ? [change.block] : []));
    expect(await w.kernel.getBlocks(documentId)).toEqual(shown);
  });

  it("a retry replays; another payload under the key is a conflict and writes nothing", async () => {
    const w = await world();
    const first = await create(w, ARGS, { idempotencyKey: "create-3" });
    expectOk(first, "write");
    const again = await create(w, ARGS, { idempotencyKey: "create-3", toolCallId: "retry" });
    expect(again.audit.commandId).toBe(first.audit.commandId);
    expect(again.result).toEqual(first.result);
    const before = await snapshot(w);
    const other = await create(w, { ...ARGS, title: "Another" }, { idempotencyKey: "create-3" });
    expectFailure(other, "mnote_tool_idempotency_conflict");
    await expectOnlyAuditGrew(w, before);
    expect((await w.kernel.admin.listPages(w.ids.ws)).filter((p) => p.title === "Outage runbook")).toHaveLength(1);
  });

  it("a viewer may not create pages, a stranger hears what a missing workspace answers; nothing is written", async () => {
    const w = await world();
    const before = await snapshot(w);
    expectFailure(
      await create(w, ARGS, { actorId: w.ids.viewer }, w.tokens.viewer),
      "mnote_tool_permission_denied",
      M.pageWriteDenied,
    );
    expectFailure(
      await create(w, ARGS, { actorId: w.ids.stranger }, w.tokens.stranger),
      "mnote_tool_permission_denied",
      M.workspaceUnreadable,
    );
    await expectOnlyAuditGrew(w, before, 2);
  });

  it("a private page is its creator's alone: another editor cannot read it", async () => {
    const w = await world();
    const out = await create(w, { ...ARGS, private: true }, { actorId: w.ids.editor }, w.tokens.editor);
    const { documentId } = expectOk<{ documentId: string }>(out, "write");
    expect(await w.kernel.getPage(documentId)).toMatchObject({ isPrivate: true });
    const asEditor = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { documentId, actorId: w.ids.editor }),
      w.tokens.editor,
    );
    expectOk(asEditor, "read");
    const asOwner = await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { documentId }), w.tokens.owner);
    expectFailure(asOwner, "mnote_tool_permission_denied", M.pageUnreadable);
  });

  it("held for approval like every agent page write: no page until a person decides; a retry asks again", async () => {
    const w = await world();
    await panelAs(w, w.tokens.owner).workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: true });
    const held = await create(w, ARGS, { idempotencyKey: "create-held" }, w.tokens.ownerAgent);
    expectFailure(held, "mnote_tool_approval_required");
    const documentId = newPageId(w.ids.ws, w.ids.owner, "create-held");
    expect(await w.kernel.getPage(documentId)).toBeNull();
    const [proposal] = await w.kernel.listProposals({ workspaceId: w.ids.ws, documentId, decidedLimit: 0 });
    expect(proposal).toMatchObject({ status: "pending", held: true, idempotencyKey: "create-held" });
    const retry = await create(w, ARGS, { idempotencyKey: "create-held", toolCallId: "retry" }, w.tokens.ownerAgent);
    expectFailure(retry, "mnote_tool_approval_required");
    expect(await w.kernel.listProposals({ workspaceId: w.ids.ws, documentId, decidedLimit: 0 })).toHaveLength(1);
    // A person's own create is never held.
    expectOk(await create(w, ARGS, { idempotencyKey: "create-person" }), "write");
  });

  it("the panel lists a held new page whole; approving creates it, the retry hears it, reverting removes it", async () => {
    const w = await world();
    const owner = panelAs(w, w.tokens.owner);
    await owner.workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: true });
    expectFailure(
      await create(w, ARGS, { idempotencyKey: "create-p" }, w.tokens.ownerAgent),
      "mnote_tool_approval_required",
    );
    const documentId = newPageId(w.ids.ws, w.ids.owner, "create-p");
    const [proposed] = await owner.pages.proposed({ workspaceId: w.ids.ws });
    expect(proposed).toMatchObject({ documentId, title: "Outage runbook", isPrivate: false, canDecide: true });
    expect(proposed!.blocks.map((block) => block.text)).toEqual(["Steps", "page the on-call", "open the status page"]);
    // A viewer sees it (they could read it once created) but may not decide.
    const [asViewer] = await panelAs(w, w.tokens.viewer).pages.proposed({ workspaceId: w.ids.ws });
    expect(asViewer).toMatchObject({ documentId, canDecide: false });

    const approved = await owner.pages.approveProposed({ workspaceId: w.ids.ws, proposalId: proposed!.proposalId });
    expect(approved).toMatchObject({ ok: true, result: { documentId, revision: 1 } });
    expect(await w.kernel.getPage(documentId)).toMatchObject({ title: "Outage runbook" });
    expect(await owner.pages.proposed({ workspaceId: w.ids.ws })).toEqual([]);
    const retry = await create(w, ARGS, { idempotencyKey: "create-p", toolCallId: "retry" }, w.tokens.ownerAgent);
    expect(expectOk<{ documentId: string }>(retry, "write").documentId).toBe(documentId);

    // Reverting the creation (a person's revert proposal, then its approval) removes the page again.
    const ref = { workspaceId: w.ids.ws, documentId };
    const { proposalId } = await owner.page.revert({ ...ref, commandId: approved.audit.commandId! });
    expect((await owner.proposals.approve({ ...ref, proposalId: proposalId! })).ok).toBe(true);
    expect(await w.kernel.getPage(documentId)).toBeNull();
    expect((await owner.pages.list({ workspaceId: w.ids.ws })).map((page) => page.id)).not.toContain(documentId);
  });

  it("a rejected new page is never created; the agent's retry hears the reason", async () => {
    const w = await world();
    const owner = panelAs(w, w.tokens.owner);
    await owner.workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: true });
    await create(w, ARGS, { idempotencyKey: "create-r" }, w.tokens.ownerAgent);
    const [proposed] = await owner.pages.proposed({ workspaceId: w.ids.ws });
    await owner.pages.rejectProposed({
      workspaceId: w.ids.ws,
      proposalId: proposed!.proposalId,
      reason: "we have one",
    });
    const retry = await create(w, ARGS, { idempotencyKey: "create-r", toolCallId: "retry" }, w.tokens.ownerAgent);
    expectFailure(retry, "mnote_tool_rejected", /we have one/);
    expect(await w.kernel.getPage(proposed!.documentId)).toBeNull();
  });

  it("a creation's revert is refused once the page was edited, and the page stays", async () => {
    const w = await world();
    const owner = panelAs(w, w.tokens.owner);
    const created = await create(w, ARGS, { idempotencyKey: "create-e" }, w.tokens.ownerAgent);
    const { documentId } = expectOk<{ documentId: string }>(created, "write");
    const rename = w.envelope("mnote.page.update_title", { title: "Runbook v2" }, { documentId });
    expectOk(await w.call("mnote.page.update_title", rename), "write");
    const ref = { workspaceId: w.ids.ws, documentId };
    const { envelope } = await owner.page.revert({ ...ref, commandId: created.audit.commandId! });
    expect(envelope.ok).toBe(true);
    const [revert] = await owner.proposals.list(ref);
    const applied = await owner.proposals.approve({ ...ref, proposalId: revert!.id });
    expect(applied).toMatchObject({ ok: false, error: { code: "mnote_tool_invalid_input" } });
    expect(await w.kernel.getPage(documentId)).toMatchObject({ title: "Runbook v2" });
  });
});
