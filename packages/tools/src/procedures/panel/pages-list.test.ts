import { describe, expect, it } from "vitest";
import { createWorld } from "../../test-support";
import { agentDryRun, panelAs } from "./test-panel";

describe("panel: the pages list", () => {
  it("answers each readable page's pending proposals, from one kernel read whatever the number of pages", async () => {
    const w = await createWorld();
    for (let i = 0; i < 30; i++)
      await w.kernel.admin.createPage({ workspaceId: w.ids.ws, title: `Extra ${i}`, createdBy: w.ids.owner });
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const proposal = await agentDryRun(w, "mnote.page.update_title", { title: "Agent title" });
    await w.call("mnote.page.update_title", { ...proposal, toolCallId: "again" }, w.tokens.ownerAgent); // the same edit again: one decision
    await agentDryRun(w, "mnote.page.save", { content: [{ type: "paragraph", text: "more" }], mode: "append" });
    await agentDryRun(w, "mnote.page.update_title", { title: "Private" }, { documentId: w.ids.privatePage });

    const reads: string[] = [];
    const counting = new Proxy(w.kernel, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          reads.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const pages = await panelAs(w, w.tokens.owner, counting).pages.list({ workspaceId: w.ids.ws });
    expect(reads).toEqual(["findTokenByHash", "listPageOverviews"]);
    expect(pages).toHaveLength(32);
    expect(pages.find((p) => p.id === w.ids.page)).toEqual({
      id: w.ids.page,
      title: "Project plan",
      revision: 1,
      isPrivate: false,
      canWrite: true,
      pendingProposals: 2,
    });
    expect(pages.find((p) => p.id === w.ids.privatePage)).toMatchObject({ isPrivate: true, pendingProposals: 1 });
    expect(pages.filter((p) => p.title.startsWith("Extra")).every((p) => p.pendingProposals === 0)).toBe(true);

    // The viewer sees the same counts on the pages they may read, and no private page.
    const viewerPages = await panelAs(w, w.tokens.viewer).pages.list({ workspaceId: w.ids.ws });
    expect(viewerPages.find((p) => p.id === w.ids.page)).toMatchObject({ canWrite: false, pendingProposals: 2 });
    expect(viewerPages.map((p) => p.id)).not.toContain(w.ids.privatePage);
    // A stranger's list of someone else's workspace is empty; another workspace's pages never appear.
    expect(await panelAs(w, w.tokens.stranger).pages.list({ workspaceId: w.ids.ws })).toEqual([]);

    // Decided proposals leave the count.
    const panel = panelAs(w, w.tokens.owner);
    for (const p of (await panel.proposals.list(ref)).filter((item) => item.status === "pending")) {
      await panel.proposals.reject({ ...ref, proposalId: p.id });
    }
    expect((await panel.pages.list({ workspaceId: w.ids.ws })).find((p) => p.id === w.ids.page)?.pendingProposals).toBe(
      0,
    );
  });

  it("refuses a workspace id the contract would refuse, with a clear message", async () => {
    const w = await createWorld();
    await expect(panelAs(w, w.tokens.owner).pages.list({ workspaceId: "x".repeat(129) })).rejects.toThrow(/128/);
    await expect(panelAs(w, w.tokens.owner).pages.list({ workspaceId: "bad\u0000id" })).rejects.toThrow();
  });
});

describe("panel: ids the contract refuses, on the procedures that decide", () => {
  it("answers invalid input (422) naming the field, and writes nothing", async () => {
    const w = await createWorld();
    const panel = panelAs(w, w.tokens.owner);
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await agentDryRun(w, "mnote.page.save", { content: [{ type: "paragraph", text: "more" }], mode: "append" });
    const [proposal] = await panel.proposals.list(ref);
    const before = await w.kernel.admin.tableSnapshot();
    const refusals = await Promise.all(
      [
        () => panel.page.revert({ ...ref, commandId: "cmd\u0007bell" }),
        () => panel.page.revert({ ...ref, documentId: "d".repeat(129), commandId: "cmd_1" }),
        () => panel.proposals.applyPart({ ...ref, proposalId: proposal!.id, keep: [-1] }),
        () => panel.proposals.approve({ ...ref, proposalId: 0 }),
      ].map((call) =>
        call().then(
          () => null,
          (error: { code?: string; message: string }) => error,
        ),
      ),
    );
    expect(refusals.map((error) => error?.code)).toEqual([
      "UNPROCESSABLE_CONTENT",
      "UNPROCESSABLE_CONTENT",
      "UNPROCESSABLE_CONTENT",
      "UNPROCESSABLE_CONTENT",
    ]);
    expect(refusals.map((error) => error!.message)).toEqual([
      expect.stringMatching(/commandId[\s\S]*control characters/),
      expect.stringMatching(/documentId/),
      expect.stringMatching(/keep/),
      expect.stringMatching(/proposalId/),
    ]);
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
  });
});
