import { isWorkspaceTool, TOOL_ERROR_MESSAGES as M, TOOL_NAMES, TOOLS, type ToolName } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import {
  ARTIFACT_WRITE_TOOLS,
  expectFailure,
  expectOk,
  expectOnlyAuditGrew,
  PAGE_TOOLS,
  PAGE_WRITE_TOOLS,
  snapshot,
  useWorlds,
  WRITE_TOOLS,
} from "./test-contract";
import { testKernels } from "./test-kernels";
import { SAMPLE_ARGS, type World } from "./test-support";

/**
 * Rule 4: workspace roles (owner, editor, viewer) plus private pages readable or
 * writable only by explicit grant. Denied → mnote_tool_permission_denied.
 */

type Who = "owner" | "editor" | "viewer" | "privateReader" | "stranger";
const as = (w: World, who: Who, tool: ToolName, documentId = w.ids.page, args = SAMPLE_ARGS[tool]) =>
  w.call(
    tool,
    // A workspace tool's envelope names no page.
    w.envelope(tool, args, { actorId: w.ids[who], ...(isWorkspaceTool(tool) ? {} : { documentId }) }),
    w.tokens[who],
  );
/** What a caller outside the workspace hears: a missing page's answer, or a workspace tool's missing workspace's. */
const strangerMessage = (tool: ToolName) => (isWorkspaceTool(tool) ? M.workspaceUnreadable : M.pageUnreadable);

const deniedMessage = (tool: ToolName) =>
  PAGE_WRITE_TOOLS.includes(tool as never) ? M.pageWriteDenied : M.artifactWriteDenied;

describe.each(testKernels())("roles and page access ($name)", ({ open }) => {
  const world = useWorlds(open);

  it.each(["owner", "editor"] as const)("%s reads and uses every write tool", async (who) => {
    const w = await world();
    for (const tool of TOOL_NAMES) expectOk(await as(w, who, tool), TOOLS[tool].kind);
    const page = await w.kernel.getPage(w.ids.page);
    expect(page).toMatchObject({ title: "Renamed", revision: 5, options: { wideLayout: true } });
    const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes.map((n) => [n.kind, n.createdBy])).toEqual([
      ["summary", w.ids[who]],
      ["ai_note", w.ids[who]],
    ]);
    expect(edges).toHaveLength(2);
  });

  it("a viewer reads the page", async () => {
    const w = await world();
    expect(expectOk(await as(w, "viewer", "mnote.page.get"), "read")).toMatchObject({
      title: "Project plan",
      revision: 1,
    });
  });

  it.each(WRITE_TOOLS)("a viewer cannot %s (page write / artifact write denied), nothing written", async (tool) => {
    const w = await world();
    const before = await snapshot(w);
    expectFailure(await as(w, "viewer", tool), "mnote_tool_permission_denied", deniedMessage(tool));
    expectFailure(
      await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.viewer, dryRun: true }), w.tokens.viewer),
      "mnote_tool_permission_denied",
      deniedMessage(tool),
    );
    await expectOnlyAuditGrew(w, before, 2);
  });

  it.each(TOOL_NAMES)("a stranger (not a member) is denied %s, as for a missing page", async (tool) => {
    const w = await world();
    const before = await snapshot(w);
    expectFailure(await as(w, "stranger", tool), "mnote_tool_permission_denied", strangerMessage(tool));
    await expectOnlyAuditGrew(w, before);
  });

  it.each(TOOL_NAMES)("a member removed from the workspace loses %s", async (tool) => {
    const w = await world();
    expect((await as(w, "editor", "mnote.page.get")).ok).toBe(true);
    await w.kernel.admin.removeMember({ workspaceId: w.ids.ws, userId: w.ids.editor });
    expectFailure(await as(w, "editor", tool), "mnote_tool_permission_denied", strangerMessage(tool));
  });

  describe("private page", () => {
    it.each(["editor", "viewer"] as const)("a %s without a grant can neither read nor write it", async (who) => {
      const w = await world();
      const before = await snapshot(w);
      for (const tool of PAGE_TOOLS) {
        expectFailure(await as(w, who, tool, w.ids.privatePage), "mnote_tool_permission_denied", M.pageUnreadable);
      }
      await expectOnlyAuditGrew(w, before, PAGE_TOOLS.length);
    });

    it("a read grant lets a member read it but not write it or its artifacts", async () => {
      const w = await world();
      const read = expectOk(await as(w, "privateReader", "mnote.page.get", w.ids.privatePage), "read");
      expect(read).toMatchObject({ documentId: w.ids.privatePage, title: `Private ${w.SECRET}` });
      const before = await snapshot(w);
      for (const tool of WRITE_TOOLS) {
        expectFailure(
          await as(w, "privateReader", tool, w.ids.privatePage),
          "mnote_tool_permission_denied",
          deniedMessage(tool),
        );
      }
      await expectOnlyAuditGrew(w, before, WRITE_TOOLS.length);
    });

    it("a write grant lets the same member write it and its artifacts", async () => {
      const w = await world();
      await w.kernel.admin.grantPage({ documentId: w.ids.privatePage, userId: w.ids.privateReader, access: "write" });
      for (const tool of WRITE_TOOLS) {
        // A comment names a block of the page it is on.
        const args = tool === "mnote.comment.create" ? { blockId: "s1", markdown: "A comment" } : SAMPLE_ARGS[tool];
        expectOk(await as(w, "privateReader", tool, w.ids.privatePage, args), "write");
      }
      expect(await w.kernel.getPage(w.ids.privatePage)).toMatchObject({ title: "Renamed", revision: 5 });
      expect((await w.kernel.listArtifacts(w.ids.privatePage)).nodes).toHaveLength(2);
    });

    it("the workspace owner needs a grant too: without one the private page is unreadable", async () => {
      const w = await world();
      const hidden = await w.kernel.admin.createPage({
        workspaceId: w.ids.ws,
        title: "No grants",
        isPrivate: true,
        createdBy: w.ids.editor,
      });
      for (const tool of PAGE_TOOLS) {
        expectFailure(await as(w, "owner", tool, hidden.id), "mnote_tool_permission_denied", M.pageUnreadable);
      }
      // With its write grant (createWorld gives one) the owner writes the other private page.
      expectOk(await as(w, "owner", "mnote.page.update_title", w.ids.privatePage), "write");
    });

    it("revoking a grant takes the page away again", async () => {
      const w = await world();
      expectOk(await as(w, "privateReader", "mnote.page.get", w.ids.privatePage));
      await w.kernel.admin.revokePageGrant({ documentId: w.ids.privatePage, userId: w.ids.privateReader });
      expectFailure(
        await as(w, "privateReader", "mnote.page.get", w.ids.privatePage),
        "mnote_tool_permission_denied",
        M.pageUnreadable,
      );
    });
  });

  it.each(ARTIFACT_WRITE_TOOLS)("a write grant on a public page lets a viewer %s", async (tool) => {
    const w = await world();
    await w.kernel.admin.grantPage({ documentId: w.ids.page, userId: w.ids.viewer, access: "write" });
    expectOk(await as(w, "viewer", tool), "write");
    expectOk(await as(w, "viewer", "mnote.page.save"), "write");
  });
});
