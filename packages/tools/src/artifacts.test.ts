import { describe, expect, it } from "vitest";
import { expectOk, revisionOf, useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";
import type { World } from "./test-support";

/**
 * Rule 11: create_summary keeps one summary node per page plus one reference edge,
 * created or updated/confirmed; create_ai_note makes a new node and edge per call.
 */

const summary = (w: World, text: string, overrides: Record<string, unknown> = {}, token = w.tokens.owner) =>
  w.call(
    "mnote.artifact.create_summary",
    w.envelope("mnote.artifact.create_summary", { summary: text }, overrides),
    token,
  );
const note = (w: World, text: string, overrides: Record<string, unknown> = {}) =>
  w.call("mnote.artifact.create_ai_note", w.envelope("mnote.artifact.create_ai_note", { content: text }, overrides));

type SummaryResult = { commandName: string; nodeId: string; edgeId: string; created: boolean };
type NoteResult = { commandName: string; nodeId: string; edgeId: string };

describe.each(testKernels())("artifacts ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("create_summary twice (different keys): one summary node, updated; one edge; the second says created:false", async () => {
    const w = await world();
    const first = await summary(w, "First take");
    const a = expectOk<SummaryResult>(first, "write");
    expect(a).toEqual({
      commandName: "artifact.summary.upsert",
      nodeId: expect.any(String),
      edgeId: expect.any(String),
      created: true,
    });
    const second = await summary(w, "  Second take ");
    const b = expectOk<SummaryResult>(second, "write");
    expect(b).toEqual({ ...a, created: false });
    expect(second.audit.commandId).not.toBe(first.audit.commandId);

    const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({
      id: a.nodeId,
      kind: "summary",
      content: "Second take",
      documentId: w.ids.page,
      workspaceId: w.ids.ws,
    });
    expect(edges).toEqual([
      {
        id: a.edgeId,
        workspaceId: w.ids.ws,
        fromDocumentId: w.ids.page,
        toNodeId: a.nodeId,
        kind: "reference",
        createdAt: expect.any(String),
      },
    ]);
    expect((await w.kernel.getSummary(w.ids.page))!.content).toBe("Second take");
    // Artifacts hang off the page; they do not move its revision.
    expect(await revisionOf(w)).toBe(1);
  });

  it("create_summary from two actors still keeps one node and one edge", async () => {
    const w = await world();
    expectOk(await summary(w, "Owner's"));
    expectOk(await summary(w, "Editor's", { actorId: w.ids.editor }, w.tokens.editor));
    const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes.map((n) => n.content)).toEqual(["Editor's"]);
    expect(edges).toHaveLength(1);
  });

  it("concurrent first summaries (different keys) still make one node and one edge", async () => {
    const w = await world();
    const outs = await Promise.all(Array.from({ length: 5 }, (_, i) => summary(w, `take ${i}`)));
    for (const out of outs) expectOk(out, "write");
    const created = outs.map((o) => (o.result as SummaryResult).created);
    expect(created.filter(Boolean)).toHaveLength(1);
    const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes).toHaveLength(1);
    expect(edges).toHaveLength(1);
  });

  it("each page has its own summary", async () => {
    const w = await world();
    expectOk(await summary(w, "Main"));
    expectOk(await summary(w, "Private", { documentId: w.ids.privatePage }));
    expect((await w.kernel.getSummary(w.ids.page))!.content).toBe("Main");
    expect((await w.kernel.getSummary(w.ids.privatePage))!.content).toBe("Private");
  });

  it("create_ai_note twice: two nodes, two edges, each its own", async () => {
    const w = await world();
    const first = await note(w, "Note one");
    const second = await note(w, "Note one");
    const a = expectOk<NoteResult>(first, "write");
    const b = expectOk<NoteResult>(second, "write");
    expect(a).toEqual({
      commandName: "artifact.aiNote.create",
      nodeId: expect.any(String),
      edgeId: expect.any(String),
    });
    expect(b.nodeId).not.toBe(a.nodeId);
    expect(b.edgeId).not.toBe(a.edgeId);
    const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes.map((n) => [n.id, n.kind, n.content, n.createdBy, n.commandId]).sort()).toEqual(
      [
        [a.nodeId, "ai_note", "Note one", w.ids.owner, first.audit.commandId],
        [b.nodeId, "ai_note", "Note one", w.ids.owner, second.audit.commandId],
      ].sort(),
    );
    expect(edges.map((e) => [e.id, e.fromDocumentId, e.toNodeId, e.kind]).sort()).toEqual(
      [
        [a.edgeId, w.ids.page, a.nodeId, "reference"],
        [b.edgeId, w.ids.page, b.nodeId, "reference"],
      ].sort(),
    );
  });

  it("summaries and notes live side by side: one summary, n notes, n+1 edges", async () => {
    const w = await world();
    for (let i = 0; i < 3; i++) {
      expectOk(await note(w, `note ${i}`));
      expectOk(await summary(w, `summary ${i}`));
    }
    const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes.filter((n) => n.kind === "summary").map((n) => n.content)).toEqual(["summary 2"]);
    expect(nodes.filter((n) => n.kind === "ai_note")).toHaveLength(3);
    expect(edges).toHaveLength(4);
    expect(new Set(edges.map((e) => e.toNodeId))).toEqual(new Set(nodes.map((n) => n.id)));
  });
});
