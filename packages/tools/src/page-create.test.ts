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
      M.pageUnreadable,
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
});
