import { type Block, PAGE_CONTENT_IS_DATA, type SearchHit, TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import { openSqliteDriver, SqlKernel } from "@mnote/kernel";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { askSessionId } from "./ask-session";
import { callTool } from "./call-tool";
import { createToolsContext } from "./context";
import { snippetOf } from "./procedures/workspace-search";
import { expectFailure, expectOk, useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";

/*
 * mnote.workspace.search (issue 34, decision 0045) through the router: what a caller finds, windows, and the no-leak
 * rule — a page the caller may not read changes nothing in the answer (hits, order, cursors).
 */

interface PageSpec {
  id: string;
  title: string;
  isPrivate: boolean;
  /** Granted to the caller (read). */
  granted: boolean;
  texts: string[];
}

const WORDS = ["launch", "plan", "budget", "项目计划", "计划", "发布", "Friday", "review"];

/** A workspace with an owner (who wrote every page) and a caller (a viewer), holding `pages` in order. */
async function workspaceWith(pages: readonly PageSpec[], kernel?: SqlKernel) {
  const k = kernel ?? (await SqlKernel.open(openSqliteDriver(":memory:")));
  const owner = (await k.admin.createUser({ id: "owner", name: "Owner" })).id;
  const caller = (await k.admin.createUser({ id: "caller", name: "Caller" })).id;
  const ws = (await k.admin.createWorkspace({ id: "ws", name: "Team", ownerId: owner, approvalRequired: false })).id;
  await k.admin.addMember({ workspaceId: ws, userId: caller, role: "viewer" });
  for (const page of pages) {
    const blocks: Block[] = page.texts.map((text, i) => ({ id: `${page.id}_b${i}`, type: "paragraph", text }));
    await k.admin.createPage({
      id: page.id,
      workspaceId: ws,
      title: page.title,
      isPrivate: page.isPrivate,
      blocks,
      createdBy: owner,
    });
    if (page.granted) await k.admin.grantPage({ documentId: page.id, userId: caller, access: "read" });
  }
  const token = (await k.admin.createToken({ userId: caller, holder: "agent", scopes: ["page.read"] })).token;
  const search = (args: Record<string, unknown>, sessionId = "session_1", authorization = token) =>
    callTool(createToolsContext({ kernel: k, authorization, door: "agent" }), "mnote.workspace.search", {
      toolName: "mnote.workspace.search",
      workspaceId: ws,
      actorId: caller,
      sessionId,
      runId: "run_1",
      toolCallId: "call_1",
      traceId: "trace_1",
      capabilityScope: ["page.read"],
      args,
    });
  return { kernel: k, owner, caller, ws, token, search };
}

type Search = Awaited<ReturnType<typeof workspaceWith>>["search"];
type SearchResult = { hits: SearchHit[]; nextCursor: string | null };

/** Every window of a search, following the cursors: the whole answer a caller can get. */
async function allWindows(search: Search, query: string, limit: number, documentIds?: string[]) {
  const windows: SearchResult[] = [];
  let cursor: string | undefined;
  do {
    const out = await search({ query, limit, ...(cursor ? { cursor } : {}), ...(documentIds ? { documentIds } : {}) });
    const result = expectOk<SearchResult>(out, "read");
    windows.push(result);
    cursor = result.nextCursor ?? undefined;
  } while (cursor && windows.length < 50);
  return windows;
}

const readable = (page: PageSpec) => !page.isPrivate || page.granted;

describe("mnote.workspace.search", () => {
  it("marks the match in a snippet around it", () => {
    expect(snippetOf("We decided the Launch date", ["launch"])).toBe("We decided the «Launch» date");
    const long = `${"x ".repeat(200)}launch ${"y ".repeat(200)}`;
    const snippet = snippetOf(long, ["launch"]);
    expect(snippet).toMatch(/^….*«launch».*…$/);
    expect(snippet.length).toBeLessThan(200);
    expect(snippetOf("项目计划", ["计划"])).toBe("项目«计划»");
  });

  it("no leak: the answer for a caller is the answer on a database holding only the pages they may read", async () => {
    const pageArb = (i: number) =>
      fc.record({
        id: fc.constant(`p${i}`),
        title: fc.constantFrom(...WORDS, "Notes", "会议纪要"),
        isPrivate: fc.boolean(),
        granted: fc.boolean(),
        texts: fc.array(
          fc.array(fc.constantFrom(...WORDS, "and", "the"), { minLength: 1, maxLength: 4 }).map((w) => w.join(" ")),
          { maxLength: 4 },
        ),
      });
    const pagesArb = fc
      .integer({ min: 1, max: 6 })
      .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => pageArb(i))));
    await fc.assert(
      fc.asyncProperty(
        pagesArb,
        fc.constantFrom(...WORDS, "launch plan", "计划 发布"),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        async (pages, query, limit, limitToSome) => {
          const full = await workspaceWith(pages);
          const only = await workspaceWith(pages.filter(readable));
          try {
            const documentIds = limitToSome ? pages.filter((_, i) => i % 2 === 0).map((p) => p.id) : undefined;
            const seen = await allWindows(full.search, query, limit, documentIds);
            expect(seen).toEqual(await allWindows(only.search, query, limit, documentIds));
            for (const { hits } of seen)
              for (const hit of hits) expect(readable(pages.find((p) => p.id === hit.documentId)!)).toBe(true);
          } finally {
            await full.kernel.close();
            await only.kernel.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe.each(testKernels())("mnote.workspace.search ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("finds titles, then blocks, on the pages the caller may read; answers with no page in its audit", async () => {
    const w = await world();
    const out = await w.call("mnote.workspace.search", w.envelope("mnote.workspace.search", { query: "plan" }));
    const result = expectOk<SearchResult & { workspaceId: string; contentNotice: string }>(out, "read");
    expect(result.workspaceId).toBe(w.ids.ws);
    expect(result.contentNotice).toBe(PAGE_CONTENT_IS_DATA);
    expect(result.hits[0]).toEqual({
      documentId: w.ids.page,
      title: "Project plan",
      blockId: null,
      snippet: "Project «plan»",
    });
    expect(out.audit).toEqual({ effect: "read", commandId: null, workspaceId: w.ids.ws, documentId: null });
    // The private page says the secret word; a viewer without its grant does not find it, its reader does.
    const ids = (envelope: { result: unknown }) => (envelope.result as SearchResult).hits.map((hit) => hit.documentId);
    const asViewer = await w.call(
      "mnote.workspace.search",
      w.envelope("mnote.workspace.search", { query: w.SECRET }, { actorId: w.ids.viewer }),
      w.tokens.viewer,
    );
    expect(ids(asViewer)).toEqual([]);
    const asReader = await w.call(
      "mnote.workspace.search",
      w.envelope("mnote.workspace.search", { query: w.SECRET }, { actorId: w.ids.privateReader }),
      w.tokens.privateReader,
    );
    expect(ids(asReader)).toEqual([w.ids.privatePage, w.ids.privatePage]);
  });

  it("a stranger gets the refusal a missing workspace gets", async () => {
    const w = await world();
    const stranger = await w.call(
      "mnote.workspace.search",
      w.envelope("mnote.workspace.search", { query: "plan" }, { actorId: w.ids.stranger }),
      w.tokens.stranger,
    );
    const missing = await w.call(
      "mnote.workspace.search",
      w.envelope("mnote.workspace.search", { query: "plan" }, { workspaceId: "ws_missing" }),
    );
    expectFailure(stranger, "mnote_tool_permission_denied", M.workspaceUnreadable);
    expect(stranger.error).toEqual(missing.error);
  });

  it("an Ask Hermes run searches with the asking person's rights: the token's reader finds less when a viewer asked", async () => {
    const w = await world();
    const token = (await w.newToken(w.ids.privateReader, ["page.read"], null, "agent")).token;
    const sessionId = askSessionId(w.ids.page);
    await w.kernel.ask.openSession({ sessionId, userId: w.ids.viewer, workspaceId: w.ids.ws, documentId: w.ids.page });
    const search = (overrides: Record<string, unknown>) =>
      w.call(
        "mnote.workspace.search",
        w.envelope(
          "mnote.workspace.search",
          { query: `${w.SECRET}` },
          { actorId: w.ids.privateReader, capabilityScope: ["page.read"], ...overrides },
        ),
        token,
      );
    const alone = expectOk<SearchResult>(await search({}), "read");
    expect(alone.hits.map((hit) => hit.documentId)).toEqual([w.ids.privatePage, w.ids.privatePage]);
    // The same token, in a conversation a viewer asked: the private page is no hit, as for the viewer.
    const forViewer = expectOk<SearchResult>(await search({ sessionId }), "read");
    expect(forViewer.hits).toEqual([]);
  });
});
