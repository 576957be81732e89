import { describe, expect, it } from "vitest";
import { createWorld } from "../../test-support";
import { panelAs } from "./test-panel";

describe("panel.workspace.setApproval is on record (issue 20 item 2)", () => {
  it("an owner's switch writes who, when, from and to; the policy history shows it, newest first", async () => {
    const w = await createWorld();
    const owner = panelAs(w, w.tokens.owner);
    const before = new Date().toISOString();
    const initial = (await owner.page.view({ workspaceId: w.ids.ws, documentId: w.ids.page })).workspace
      .approvalRequired;
    await owner.workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: !initial });
    await owner.workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: initial });

    const history = await owner.workspace.policyHistory({ workspaceId: w.ids.ws });
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject({
      by: w.ids.owner,
      byName: expect.any(String),
      via: "panel",
      from: { approvalRequired: !initial },
      to: { approvalRequired: initial },
    });
    expect(history[1]).toMatchObject({ from: { approvalRequired: initial }, to: { approvalRequired: !initial } });
    expect(history[1]!.at >= before).toBe(true);
    // The audit record itself, as an operator reads it: the owner is its actor, the workspace its scope, no page.
    const [record] = await w.kernel.listAudit({ workspaceId: w.ids.ws, toolName: "admin.workspace.policy", limit: 1 });
    expect(record!.identity).toMatchObject({ actorId: w.ids.owner, workspaceId: w.ids.ws, documentId: "" });
  });

  it("an editor cannot switch it (nothing on record); members read the history, a stranger does not", async () => {
    const w = await createWorld();
    const editor = panelAs(w, w.tokens.editor);
    await expect(editor.workspace.setApproval({ workspaceId: w.ids.ws, approvalRequired: false })).rejects.toThrow(
      /only a workspace owner/,
    );
    expect(await panelAs(w, w.tokens.owner).workspace.policyHistory({ workspaceId: w.ids.ws })).toEqual([]);
    // A member who is not an owner still reads the history; a stranger does not.
    expect(await editor.workspace.policyHistory({ workspaceId: w.ids.ws })).toEqual([]);
    await expect(panelAs(w, w.tokens.stranger).workspace.policyHistory({ workspaceId: w.ids.ws })).rejects.toThrow(
      /only a member/,
    );
  });
});
