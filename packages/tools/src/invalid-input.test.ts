import {
  isWorkspaceTool,
  LIMITS,
  TOOL_NAMES,
  TOOLS,
  type ToolName,
  WORKSPACE_TOOL_TAKES_NO_DOCUMENT,
} from "@mnote/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectFailure,
  expectOnlyAuditGrew,
  KERNEL_WARMUP_MS,
  snapshot,
  useWorlds,
  WRITE_TOOLS,
} from "./test-contract";
import { testKernels } from "./test-kernels";
import { createWorld, SAMPLE_ARGS, type World } from "./test-support";

/**
 * Rule 2: invalid input → mnote_tool_invalid_input, the message names the offending
 * field, and a full table snapshot shows that only the audit log changed.
 */

type Envelope = Record<string, unknown> & { args: Record<string, unknown> };
/** One bad input: a name, how to spoil a valid envelope, and what the message must name. */
type Case = [name: string, spoil: (e: Envelope) => unknown, field: string | RegExp];

const without = (e: Envelope, key: string) => {
  const copy = { ...e };
  delete copy[key];
  return copy;
};
const withArgs = (e: Envelope, args: Record<string, unknown>) => ({ ...e, args: { ...e.args, ...args } });
const blocks = (count: number, text = "") => Array.from({ length: count }, () => ({ type: "paragraph", text }));

const REQUIRED_ENVELOPE_FIELDS = [
  "toolName",
  "workspaceId",
  "documentId",
  "actorId",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
  "capabilityScope",
  "args",
];

/** Cases every tool must refuse. */
function commonCases(tool: ToolName): Case[] {
  const other = TOOL_NAMES.find((n) => n !== tool)!;
  const cases: Case[] = [
    ...REQUIRED_ENVELOPE_FIELDS.filter((field) => field !== "documentId" || !isWorkspaceTool(tool)).map(
      (field): Case => [`missing ${field}`, (e) => without(e, field), `${field}:`],
    ),
    // A workspace tool names no page (issue 34): one sent is refused in words, whatever it names.
    ...(isWorkspaceTool(tool)
      ? ([
          [
            "documentId given",
            (e) => ({ ...e, documentId: "doc_1" }),
            `documentId: ${WORKSPACE_TOOL_TAKES_NO_DOCUMENT}`,
          ],
        ] as Case[])
      : []),
    ["workspaceId is a number", (e) => ({ ...e, workspaceId: 42 }), "workspaceId:"],
    ["documentId is empty", (e) => ({ ...e, documentId: "" }), "documentId:"],
    ["actorId is null", (e) => ({ ...e, actorId: null }), "actorId:"],
    ["traceId has a control character", (e) => ({ ...e, traceId: "t\nx" }), "traceId:"],
    ["runId is too long", (e) => ({ ...e, runId: "r".repeat(LIMITS.traceFieldLength + 1) }), "runId:"],
    ["capabilityScope is a string", (e) => ({ ...e, capabilityScope: "page.read" }), "capabilityScope:"],
    ["capabilityScope is empty", (e) => ({ ...e, capabilityScope: [] }), "capabilityScope:"],
    [
      "capabilityScope has an unknown capability",
      (e) => ({ ...e, capabilityScope: ["page.admin"] }),
      "capabilityScope.0:",
    ],
    ["args is an array", (e) => ({ ...e, args: [] }), "args:"],
    ["unknown envelope key", (e) => ({ ...e, chatHistory: ["hi"] }), /Unrecognized key: "chatHistory"/],
    ["unknown args key", (e) => withArgs(e, { surprise: 1 }), /args: Unrecognized key: "surprise"/],
    // A caller's text is echoed in a message only in short: a 3 MB key name must not make a 3 MB answer.
    [
      "unknown 3 MB args key",
      (e) => withArgs(e, { ["k".repeat(3_000_000)]: 1 }),
      /^invalid input: args: Unrecognized key: "k{1,200}…/,
    ],
    [
      "unknown 3 MB path segment",
      (e) => withArgs(e, { options: { ["o".repeat(3_000_000)]: true } }),
      /^invalid input: args[^]{1,400}$/,
    ],
    // PostgreSQL refuses U+0000 (SQLite stores it) and a lone surrogate has no UTF-8: the contract refuses both.
    [
      "traceId has an unpaired surrogate",
      (e) => ({ ...e, traceId: "t\uD800x" }),
      "traceId: must not contain an unpaired surrogate",
    ],
    ["runId has NUL", (e) => ({ ...e, runId: "r\u0000" }), "runId:"],
    ["toolName names another tool", (e) => ({ ...e, toolName: other }), `toolName: expected ${tool}`],
    ["toolName is unknown", (e) => ({ ...e, toolName: "mnote.page.delete" }), `toolName: expected ${tool}`],
    // A new page has no revision to be based on: its args refuse baseRevision as an unknown key (its own cases).
    ...("baseRevision" in TOOLS[tool].args.shape
      ? ([
          ["baseRevision is negative", (e) => withArgs(e, { baseRevision: -1 }), "args.baseRevision:"],
          ["baseRevision is a string", (e) => withArgs(e, { baseRevision: "3" }), "args.baseRevision:"],
        ] satisfies Case[])
      : []),
    ["input is a string", () => "mnote.page.get please", /^input:/],
    ["input is an array", (e) => [e], /^input:/],
    ["input is null", () => null, /^input:/],
  ];
  // Reads take no baseRevision: there it is just an unknown args key.
  return cases.filter(([name]) => !(TOOLS[tool].kind === "read" && name.startsWith("baseRevision")));
}

const WRITE_CASES: Case[] = [
  ["missing idempotencyKey", (e) => without(e, "idempotencyKey"), "idempotencyKey:"],
  ["missing dryRun", (e) => without(e, "dryRun"), "dryRun:"],
  ["dryRun is a string", (e) => ({ ...e, dryRun: "false" }), "dryRun:"],
  ["idempotencyKey is empty", (e) => ({ ...e, idempotencyKey: "" }), "idempotencyKey:"],
  [
    "idempotencyKey is too long",
    (e) => ({ ...e, idempotencyKey: "k".repeat(LIMITS.idempotencyKeyLength + 1) }),
    "idempotencyKey:",
  ],
  [
    "idempotencyKey has an unpaired surrogate",
    (e) => ({ ...e, idempotencyKey: "k\uDC00" }),
    "idempotencyKey: must not contain an unpaired",
  ],
];

const TOOL_CASES: Record<ToolName, Case[]> = {
  "mnote.page.get": [
    ["includeBody is a string", (e) => withArgs(e, { includeBody: "yes" }), "args.includeBody:"],
    ["includeBlocks is null", (e) => withArgs(e, { includeBlocks: null }), "args.includeBlocks:"],
    [
      "outline and search together",
      (e) => withArgs(e, { outline: true, search: "x" }),
      "args: ask for outline or search, not both",
    ],
    ["empty search", (e) => withArgs(e, { search: "  " }), "args.search: search must not be empty"],
    ["limit 0", (e) => withArgs(e, { limit: 0 }), "args.limit:"],
    [
      "window from an unknown block",
      (e) => withArgs(e, { startBlockId: "nope" }),
      "args.startBlockId: block nope is not on the page",
    ],
    [
      "a cursor made up",
      (e) => withArgs(e, { cursor: "bm90IGEgY3Vyc29y" }),
      "args.cursor: not a cursor from a blocks read",
    ],
  ],
  "mnote.page.save": [
    ["content missing", (e) => ({ ...e, args: { mode: "append" } }), "args.content:"],
    ["content is null", (e) => withArgs(e, { content: null }), "args.content:"],
    ["content is a string", (e) => withArgs(e, { content: "# Plan" }), "args.content:"],
    ["mode unknown", (e) => withArgs(e, { mode: "merge" }), "args.mode:"],
    ["block type unknown", (e) => withArgs(e, { content: [{ type: "table", text: "x" }] }), "args.content.0.type:"],
    ["block without type", (e) => withArgs(e, { content: [{ text: "x" }] }), "args.content.0.type:"],
    ["block text missing", (e) => withArgs(e, { content: [{ type: "paragraph" }] }), "args.content.0.text:"],
    ["block text is a number", (e) => withArgs(e, { content: [{ type: "quote", text: 7 }] }), "args.content.0.text:"],
    [
      "heading level 4",
      (e) => withArgs(e, { content: [{ type: "heading", level: 4, text: "h" }] }),
      "args.content.0.level:",
    ],
    [
      "todo checked is a string",
      (e) => withArgs(e, { content: [{ type: "todo", checked: "yes", text: "t" }] }),
      "args.content.0.checked:",
    ],
    [
      "code language too long",
      (e) => withArgs(e, { content: [{ type: "code", language: "l".repeat(41), text: "" }] }),
      "args.content.0.language:",
    ],
    [
      "unknown block key",
      (e) => withArgs(e, { content: [{ type: "paragraph", text: "x", color: "red" }] }),
      /args\.content\.0: Unrecognized key: "color"/,
    ],
    [
      "level on a paragraph",
      (e) => withArgs(e, { content: [{ type: "paragraph", text: "x", level: 1 }] }),
      /args\.content\.0: Unrecognized key: "level"/,
    ],
    [
      "block id with spaces",
      (e) => withArgs(e, { content: [{ id: "a b", type: "paragraph", text: "x" }] }),
      "args.content.0.id:",
    ],
    [
      "block text has NUL",
      (e) => withArgs(e, { content: [{ type: "paragraph", text: "a\u0000b" }] }),
      "args.content.0.text: must not contain NUL",
    ],
    [
      "block text has an unpaired surrogate",
      (e) =>
        withArgs(e, {
          content: [
            { type: "paragraph", text: "ok" },
            { type: "quote", text: "\uD83D" },
          ],
        }),
      "args.content.1.text: must not contain an unpaired surrogate",
    ],
    [
      "code language has NUL",
      (e) => withArgs(e, { content: [{ type: "code", language: "ts\u0000", text: "" }] }),
      "args.content.0.language: must not contain NUL",
    ],
    [
      "block id too long",
      (e) => withArgs(e, { content: [{ id: "a".repeat(65), type: "paragraph", text: "x" }] }),
      "args.content.0.id:",
    ],
    [
      "one block text over the limit",
      (e) => withArgs(e, { content: [{ type: "paragraph", text: "x".repeat(LIMITS.blockTextLength + 1) }] }),
      "args.content.0.text:",
    ],
    [
      "too many blocks",
      (e) => withArgs(e, { content: blocks(LIMITS.blocksPerSave + 1) }),
      /args\.content: content has more than/,
    ],
    [
      "total text over the limit",
      (e) =>
        withArgs(e, {
          content: blocks(
            Math.ceil(LIMITS.saveTextTotal / LIMITS.blockTextLength) + 1,
            "x".repeat(LIMITS.blockTextLength),
          ),
        }),
      /^args\.content: more than 2000000 characters/,
    ],
  ],
  "mnote.page.edit": [
    ["operations missing", (e) => ({ ...e, args: {} }), "args.operations:"],
    ["no operations", (e) => withArgs(e, { operations: [] }), "args.operations: operations must not be empty"],
    ["unknown op", (e) => withArgs(e, { operations: [{ op: "rename", blockId: "p1" }] }), "args.operations.0.op:"],
    [
      "insert with after and at",
      (e) =>
        withArgs(e, { operations: [{ op: "insert", after: "p1", at: "end", blocks: [{ type: "quote", text: "q" }] }] }),
      "args.operations.0: operation 0 (insert) needs exactly one of after or at",
    ],
    [
      "move with no place",
      (e) =>
        withArgs(e, {
          operations: [
            { op: "replace", blockId: "p1", text: "x" },
            { op: "move", blockId: "p1" },
          ],
        }),
      "args.operations.1: operation 1 (move) needs exactly one of after or at",
    ],
    [
      "replace that changes nothing",
      (e) => withArgs(e, { operations: [{ op: "replace", blockId: "p1" }] }),
      "args.operations.0: operation 0 (replace) changes nothing",
    ],
    [
      "insert of no blocks",
      (e) => withArgs(e, { operations: [{ op: "insert", at: "end", blocks: [] }] }),
      "args.operations.0.blocks: an insert needs at least one block",
    ],
    [
      "block id with spaces",
      (e) => withArgs(e, { operations: [{ op: "delete", blockIds: ["a b"] }] }),
      "args.operations.0.blockIds.0:",
    ],
    [
      "too many operations",
      (e) =>
        withArgs(e, {
          operations: Array.from({ length: LIMITS.editOperations + 1 }, () => ({ op: "delete", blockIds: ["p1"] })),
        }),
      /args\.operations: more than 500 operations/,
    ],
    [
      "total text over the limit",
      (e) =>
        withArgs(e, {
          operations: [
            {
              op: "insert",
              at: "end",
              blocks: blocks(
                Math.ceil(LIMITS.saveTextTotal / LIMITS.blockTextLength) + 1,
                "x".repeat(LIMITS.blockTextLength),
              ),
            },
          ],
        }),
      /args\.operations: more than 2000000 characters of text in one edit/,
    ],
    [
      "unknown block",
      (e) =>
        withArgs(e, {
          operations: [
            { op: "replace", blockId: "p1", text: "x" },
            { op: "delete", blockIds: ["nope"] },
          ],
        }),
      "args.operations[1]: block nope is not on the page",
    ],
    [
      "a replace the block type refuses",
      (e) => withArgs(e, { operations: [{ op: "replace", blockId: "p1", level: 2 }] }),
      /^args\.operations\[0\]: replace of block p1: /,
    ],
  ],
  "mnote.page.update_title": [
    ["title missing", (e) => ({ ...e, args: {} }), "args.title:"],
    ["title empty", (e) => withArgs(e, { title: "" }), "args.title: title must not be empty"],
    ["title only whitespace", (e) => withArgs(e, { title: " \t\n  " }), "args.title: title must not be empty"],
    [
      "title over 200 characters",
      (e) => withArgs(e, { title: "t".repeat(LIMITS.titleLength + 1) }),
      "args.title: title is longer than 200",
    ],
    ["title a number", (e) => withArgs(e, { title: 42 }), "args.title:"],
    ["title has NUL", (e) => withArgs(e, { title: "Plan\u0000" }), "args.title: must not contain NUL"],
    [
      "title has an unpaired surrogate",
      (e) => withArgs(e, { title: "Plan \uDE00" }),
      "args.title: must not contain an unpaired surrogate",
    ],
  ],
  "mnote.page.update_options": [
    ["options missing", (e) => ({ ...e, args: {} }), "args.options:"],
    [
      "unknown option key",
      (e) => withArgs(e, { options: { darkMode: true } }),
      /args\.options: Unrecognized key: "darkMode"/,
    ],
    ["option not a boolean", (e) => withArgs(e, { options: { wideLayout: "on" } }), "args.options.wideLayout:"],
    ["no option at all", (e) => withArgs(e, { options: {} }), "args.options: options must set at least one option"],
    ["options an array", (e) => withArgs(e, { options: [] }), "args.options:"],
  ],
  "mnote.artifact.create_summary": [
    ["summary missing", (e) => ({ ...e, args: {} }), "args.summary:"],
    ["summary empty", (e) => withArgs(e, { summary: "   " }), "args.summary: summary must not be empty"],
    [
      "summary oversized",
      (e) => withArgs(e, { summary: "s".repeat(LIMITS.summaryLength + 1) }),
      "args.summary: summary is longer",
    ],
    ["summary an object", (e) => withArgs(e, { summary: { text: "x" } }), "args.summary:"],
    ["summary has NUL", (e) => withArgs(e, { summary: "\u0000" }), "args.summary: must not contain NUL"],
  ],
  "mnote.artifact.create_ai_note": [
    ["content missing", (e) => ({ ...e, args: {} }), "args.content:"],
    ["content empty", (e) => withArgs(e, { content: "" }), "args.content: content must not be empty"],
    [
      "content oversized",
      (e) => withArgs(e, { content: "n".repeat(LIMITS.aiNoteLength + 1) }),
      "args.content: content is longer",
    ],
    ["content an array", (e) => withArgs(e, { content: ["x"] }), "args.content:"],
    ["content has NUL", (e) => withArgs(e, { content: "note\u0000" }), "args.content: must not contain NUL"],
  ],
  "mnote.page.create": [
    ["title missing", (e) => withArgs(e, { title: undefined }), "args.title:"],
    ["title empty", (e) => withArgs(e, { title: "   " }), "args.title: title must not be empty"],
    [
      "neither markdown nor blocks",
      (e) => withArgs(e, { markdown: undefined }),
      "args.blocks: give exactly one of blocks or markdown",
    ],
    [
      "both markdown and blocks",
      (e) => withArgs(e, { blocks: [{ type: "paragraph", text: "x" }] }),
      "args.blocks: give exactly one of blocks or markdown",
    ],
    ["markdown a table", (e) => withArgs(e, { markdown: "| a |\n| - |\n| b |" }), "args.markdown: line 1:"],
    ["private a string", (e) => withArgs(e, { private: "yes" }), "args.private:"],
    ["a baseRevision (a new page has none)", (e) => withArgs(e, { baseRevision: 1 }), "args:"],
  ],
  "mnote.comment.create": [
    ["markdown missing", (e) => withArgs(e, { markdown: undefined }), "args.markdown:"],
    ["markdown empty", (e) => withArgs(e, { markdown: "  " }), "args.markdown: markdown must not be empty"],
    [
      "markdown oversized",
      (e) => withArgs(e, { markdown: "m".repeat(LIMITS.commentLength + 1) }),
      "args.markdown: markdown is longer",
    ],
    ["markdown a table", (e) => withArgs(e, { markdown: "| a |\n| - |\n| b |" }), "args.markdown: line 1:"],
    ["neither block nor thread", (e) => ({ ...e, args: { markdown: "hi" } }), "args: name blockId (a new thread) or"],
    ["both block and thread", (e) => withArgs(e, { threadId: "thr_1" }), "args.threadId: name blockId or threadId"],
    [
      "quote with a thread",
      (e) => ({ ...e, args: { threadId: "thr_1", quote: "x", markdown: "hi" } }),
      "args.quote: quote goes with blockId",
    ],
    ["no such block", (e) => withArgs(e, { blockId: "nope", quote: undefined }), "args.blockId: no block nope"],
    ["quote not in the block", (e) => withArgs(e, { quote: "Second" }), "args.quote: block p1 does not contain"],
    [
      "no such thread",
      (e) => ({ ...e, args: { threadId: "thr_x", markdown: "hi" } }),
      "args.threadId: no thread thr_x",
    ],
    ["block id malformed", (e) => withArgs(e, { blockId: "a b" }), "args.blockId: block id must be"],
  ],
  "mnote.workspace.search": [
    ["query is empty", (e) => withArgs(e, { query: "" }), "args.query: query needs at least one word"],
    ["query has no word", (e) => withArgs(e, { query: " ,.!? " }), "args.query: no word to search for"],
    ["query is too long", (e) => withArgs(e, { query: "x".repeat(LIMITS.searchQueryLength + 1) }), "args.query:"],
    ["limit 0", (e) => withArgs(e, { limit: 0 }), "args.limit:"],
    ["limit past the window", (e) => withArgs(e, { limit: LIMITS.searchHitsPerWindow + 1 }), "args.limit:"],
    ["cursor not ours", (e) => withArgs(e, { cursor: "abc" }), "args.cursor: not a cursor from mnote.workspace.search"],
    ["documentIds empty", (e) => withArgs(e, { documentIds: [] }), "args.documentIds:"],
    ["unknown arg", (e) => withArgs(e, { since: "2026-01-01T00:00:00Z" }), /args: Unrecognized key: "since"/],
  ],
  "mnote.comment.list": [
    ["since not a time", (e) => withArgs(e, { since: "yesterday" }), "args.since: since must be an ISO 8601 time"],
    ["includeResolved a string", (e) => withArgs(e, { includeResolved: "yes" }), "args.includeResolved:"],
    ["cursor not ours", (e) => withArgs(e, { cursor: "abc" }), "args.cursor: not a cursor from a comment list"],
    ["unknown arg", (e) => withArgs(e, { limit: 3 }), /args: Unrecognized key: "limit"/],
  ],
};

describe.each(testKernels())("invalid input ($name)", ({ open }) => {
  const world = useWorlds(open);
  describe.each(TOOL_NAMES)("%s", (tool) => {
    const cases = [...commonCases(tool), ...(TOOLS[tool].kind === "write" ? WRITE_CASES : []), ...TOOL_CASES[tool]];
    // One world per tool: every case must leave it untouched, which is what the snapshot proves.
    let w: World;
    beforeAll(async () => {
      w = await createWorld(open);
    }, KERNEL_WARMUP_MS);
    afterAll(() => w.kernel.close());

    it.each(cases)(
      "%s → mnote_tool_invalid_input naming the field, nothing but one audit record written",
      async (_name, spoil, field) => {
        const before = await snapshot(w);
        const input = spoil(w.envelope(tool, SAMPLE_ARGS[tool]));
        const out = await w.call(tool, input);
        expectFailure(out, "mnote_tool_invalid_input");
        if (typeof field === "string") expect(out.error!.message).toContain(field);
        else expect(out.error!.message).toMatch(field);
        const [record] = await expectOnlyAuditGrew(w, before);
        expect(record).toMatchObject({
          effect: "none",
          outcome: "failed",
          errorCode: "mnote_tool_invalid_input",
          commandId: null,
        });
      },
    );

    it("the untouched envelope is valid (so each case fails for its own reason)", async () => {
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }));
      expect(out.error).toBeNull();
    });
  });

  it.each(WRITE_TOOLS)("%s: invalid input is refused in a dry run as well", async (tool) => {
    const w = await world();
    const before = await snapshot(w);
    const out = await w.call(tool, { ...w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }), args: { bogus: true } });
    expectFailure(out, "mnote_tool_invalid_input", /args/);
    await expectOnlyAuditGrew(w, before);
  });
});
