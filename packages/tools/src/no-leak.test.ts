import { type OutputEnvelope, TOOL_ERROR_MESSAGES as M, TOOLS } from "@mnote/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectFailure, expectOnlyAuditGrew, KERNEL_WARMUP_MS, PAGE_TOOLS, snapshot } from "./test-contract";
import { testKernels } from "./test-kernels";
import { createWorld, SAMPLE_ARGS, type World } from "./test-support";

/**
 * Rule 5, differentially and tool by tool: a page the caller may not read and a page
 * that does not exist answer with the same code and the same message, and no failure
 * envelope ever carries the private page's title, body or artifacts.
 */

type Target = [name: string, at: (w: World) => { workspaceId: string; documentId: string }];
const TARGETS: Target[] = [
  ["a documentId that does not exist", (w) => ({ workspaceId: w.ids.ws, documentId: "doc_does_not_exist" })],
  ["the private page, as a member without a grant", (w) => ({ workspaceId: w.ids.ws, documentId: w.ids.privatePage })],
  [
    "a page of another workspace, named under this one",
    (w) => ({ workspaceId: w.ids.ws, documentId: w.ids.otherPage }),
  ],
  [
    "a page of another workspace, under that workspace",
    (w) => ({ workspaceId: w.ids.otherWs, documentId: w.ids.otherPage }),
  ],
  ["a real page with the wrong (other) workspaceId", (w) => ({ workspaceId: w.ids.otherWs, documentId: w.ids.page })],
  [
    "a real page with a workspaceId that does not exist",
    (w) => ({ workspaceId: "ws_does_not_exist", documentId: w.ids.page }),
  ],
];

/** The ways a write can be sent; none of them may change the answer. */
type Variant = [name: string, overrides: (w: World) => Record<string, unknown>, args?: Record<string, unknown>];
const WRITE_VARIANTS: Variant[] = [
  ["real call", () => ({})],
  ["dry run", () => ({ dryRun: true })],
  ["stale baseRevision", () => ({}), { baseRevision: 0 }],
  ["dry run with a future baseRevision", () => ({ dryRun: true }), { baseRevision: 99 }],
];
const READ_VARIANTS: Variant[] = [
  ["default args", () => ({})],
  ["blocks only", () => ({}), { includeBody: false, includeOptions: false, includeBlocks: true }],
  // Windowed reads: a search for the secret, the outline, a window from the private page's own block id.
  ["search for the secret", () => ({}), { search: "TOPSECRET" }],
  ["outline", () => ({}), { outline: true }],
  ["window from a block of the private page", () => ({}), { startBlockId: "s1", limit: 1 }],
];

/** mnote.comment.list's own ways to read: every open thread, and resolved ones too from a time. */
const COMMENT_LIST_VARIANTS: Variant[] = [
  ["default args", () => ({})],
  ["resolved threads too, since a time", () => ({}), { includeResolved: true, since: "2000-01-01T00:00:00Z" }],
];

const CALLERS = ["editor", "viewer"] as const;

describe.each(testKernels())("no leak ($name)", ({ open }) => {
  let w: World;
  const failures: OutputEnvelope[] = [];
  beforeAll(async () => {
    w = await createWorld(open);
    // Give the private page artifacts, options and a title that all carry the secret.
    const owner = w.tokens.owner;
    const priv = { documentId: w.ids.privatePage };
    for (const [tool, args] of [
      ["mnote.artifact.create_summary", { summary: `summary ${w.SECRET}` }],
      ["mnote.artifact.create_ai_note", { content: `note ${w.SECRET}` }],
      ["mnote.page.update_options", { options: { wideLayout: true } }],
      ["mnote.comment.create", { blockId: "s1", markdown: `comment ${w.SECRET}` }],
    ] as const) {
      const out = await w.call(tool, w.envelope(tool, args, priv), owner);
      expect(out.ok).toBe(true);
    }
  }, KERNEL_WARMUP_MS);
  afterAll(async () => {
    // Every failure envelope any test here produced, checked once more as a whole.
    const all = JSON.stringify(failures);
    expect(all).not.toContain(w.SECRET);
    expect(all).not.toContain("Private");
    expect(all).not.toContain("Elsewhere");
    await w.kernel.close();
  });

  describe.each(PAGE_TOOLS)("%s", (tool) => {
    const variants =
      TOOLS[tool].kind === "write"
        ? WRITE_VARIANTS
        : tool === "mnote.comment.list"
          ? COMMENT_LIST_VARIANTS
          : READ_VARIANTS;

    describe.each(CALLERS)("as the %s", (who) => {
      it.each(variants)(
        "%s: every unreadable or missing page answers identically",
        async (_variant, overrides, extraArgs) => {
          const answers: Array<{ target: string; code: string; message: string }> = [];
          const before = await snapshot(w);
          for (const [target, at] of TARGETS) {
            const input = w.envelope(
              tool,
              { ...SAMPLE_ARGS[tool], ...extraArgs },
              { actorId: w.ids[who], ...at(w), ...overrides(w) },
            );
            const out = await w.call(tool, input, w.tokens[who]);
            failures.push(out);
            expectFailure(out, "mnote_tool_permission_denied", M.pageUnreadable);
            expect(JSON.stringify(out)).not.toContain(w.SECRET);
            answers.push({ target, code: out.error!.code, message: out.error!.message });
          }
          await expectOnlyAuditGrew(w, before, TARGETS.length);
          // The differential: one distinct answer across all targets.
          expect(new Set(answers.map((a) => `${a.code}\n${a.message}`)).size, JSON.stringify(answers, null, 1)).toBe(1);
        },
      );
    });
  });

  it.each(PAGE_TOOLS)("%s: the stranger gets that same answer for the real page as for a missing one", async (tool) => {
    const real = await w.call(
      tool,
      w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.stranger }),
      w.tokens.stranger,
    );
    const missing = await w.call(
      tool,
      w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.stranger, documentId: "doc_does_not_exist" }),
      w.tokens.stranger,
    );
    failures.push(real, missing);
    expect(real.error).toEqual(missing.error);
    expect(real.error).toEqual({ code: "mnote_tool_permission_denied", message: M.pageUnreadable });
  });

  it("a reader denied a write on the private page learns nothing beyond what it may read", async () => {
    // The read-granted member may read the page, so "write denied" is no leak; but the
    // failure must still not echo its title or artifacts.
    for (const tool of PAGE_TOOLS.filter((t) => TOOLS[t].kind === "write")) {
      const out = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.privateReader, documentId: w.ids.privatePage }),
        w.tokens.privateReader,
      );
      failures.push(out);
      expect(out.ok).toBe(false);
      expect(JSON.stringify(out)).not.toContain(w.SECRET);
    }
  });
});
