import {
  type Block,
  BlockInputSchema,
  DEFAULT_PAGE_OPTIONS,
  DryRunResultSchema,
  type OutputEnvelope,
  PAGE_CONTENT_IS_DATA,
  OutputEnvelopeSchema,
  type PageOptions,
  type ToolErrorCode,
  TOOL_NAMES,
  TOOLS,
  type ToolName,
  type WriteToolName,
} from "@mnote/contract";
import { applyBlockEdits, type BlockEditOperation, EditRejected, type SqlKernel } from "@mnote/kernel";
import { deletesTooMany } from "./planning/page-save";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./fingerprint";
import { expectEnvelopeShape, type Snapshot, WRITE_TOOLS } from "./test-contract";
import { kernelPerDatabaseKind } from "./test-kernels";
import { createWorld, type World } from "./test-support";

/**
 * Rule 13: random sequences of the seven tools — retries that reuse keys, dry runs, stale
 * revisions, forbidden actors, bad input, no token — against a small model of the
 * contract. After every step the envelope, the outcome and the database are checked
 * against the model and against the invariants:
 *  - the envelope is valid (OutputEnvelopeSchema, exact keys, consistent ok/result/error);
 *  - failures, dry runs, reads and replays write nothing but one audit record;
 *  - a replay answers the recorded commandId and result;
 *  - page revision == 1 + applied page commands; commands == audit records of applied writes;
 *  - title, options, blocks, summary and ai_notes are what the model says;
 *  - no failure envelope carries the private page's secret.
 */

type Actor = "owner" | "ownerAgent" | "editor" | "viewer" | "stranger";
type Base = "none" | "current" | "stale";
type KeyRef = { fresh: true } | { reuse: number };
type Step =
  | { kind: "get"; actor: Actor; doc: "main" | "private"; read: Record<string, unknown> }
  | {
      kind: "write";
      tool: WriteToolName;
      actor: Actor;
      args: Record<string, unknown>;
      key: KeyRef;
      dryRun: boolean;
      base: Base;
    }
  | { kind: "retry"; index: number; dryRun: boolean; base: Base }
  | { kind: "bad"; tool: ToolName; actor: Actor; spoil: number }
  | { kind: "unauthenticated"; tool: ToolName };

// ---------- generators ----------

const actorArb = fc.constantFrom<Actor>("owner", "owner", "ownerAgent", "editor", "editor", "viewer", "stranger");
const baseArb = fc.constantFrom<Base>("none", "none", "current", "stale");
const textArb = fc.constantFrom("alpha", "beta", "gamma", "", "  spaced  ");
const idArb = fc.option(fc.constantFrom("x1", "x2", "x3", "h1", "p1"), { nil: undefined, freq: 2 });
const withId = (id: string | undefined, block: Record<string, unknown>) =>
  id === undefined ? block : { id, ...block };
const blockArb = fc.oneof(
  fc.tuple(idArb, textArb).map(([id, text]) => withId(id, { type: "paragraph", text })),
  fc
    .tuple(idArb, textArb, fc.option(fc.constantFrom(1, 2, 3), { nil: undefined }))
    .map(([id, text, level]) =>
      withId(id, level === undefined ? { type: "heading", text } : { type: "heading", text, level }),
    ),
  fc.tuple(idArb, textArb, fc.boolean()).map(([id, text, checked]) => withId(id, { type: "todo", text, checked })),
  fc.tuple(idArb, textArb).map(([id, text]) => withId(id, { type: "quote", text })),
  idArb.map((id) => withId(id, { type: "divider" })),
);
const wiredOptionsArb = fc
  .record({ wideLayout: fc.boolean(), smallText: fc.boolean(), showToc: fc.boolean() }, { requiredKeys: [] })
  .filter((o) => Object.keys(o).length > 0);
/** Blocks an edit names: some on the page, some not (refused, naming the operation). */
const editIdArb = fc.constantFrom("h1", "p1", "x1", "x2", "x3");
const anchorArb = fc.oneof(
  editIdArb.map((after) => ({ after })),
  fc.constantFrom({ at: "start" }, { at: "end" }),
);
const editOperationArb = fc.oneof(
  fc.tuple(editIdArb, textArb).map(([blockId, text]) => ({ op: "replace", blockId, text })),
  editIdArb.map((blockId) => ({ op: "replace", blockId, type: "quote" })),
  fc
    .tuple(anchorArb, fc.constantFrom("x1", "x2", "x3", "e1", "e2"), textArb)
    .map(([where, id, text]) => ({ op: "insert", ...where, blocks: [{ id, type: "paragraph", text }] })),
  fc.uniqueArray(editIdArb, { minLength: 1, maxLength: 2 }).map((blockIds) => ({ op: "delete", blockIds })),
  fc.tuple(editIdArb, anchorArb).map(([blockId, where]) => ({ op: "move", blockId, ...where })),
);
const argsArb: Record<WriteToolName, fc.Arbitrary<Record<string, unknown>>> = {
  "mnote.page.save": fc
    .tuple(
      fc.array(blockArb, { maxLength: 3 }),
      fc.constantFrom("replace", "append", undefined),
      fc.constantFrom(undefined, undefined, true),
    )
    .map(([content, mode, allowDeletes]) => ({
      content,
      ...(mode ? { mode } : {}),
      ...(allowDeletes ? { allowDeletes } : {}),
    })),
  "mnote.page.edit": fc.array(editOperationArb, { minLength: 1, maxLength: 3 }).map((operations) => ({ operations })),
  "mnote.page.update_title": fc.constantFrom("Alpha", "  Beta ", "Gamma", "题目").map((title) => ({ title })),
  "mnote.page.update_options": fc
    .oneof(
      { arbitrary: wiredOptionsArb, weight: 3 },
      { arbitrary: wiredOptionsArb.map((o) => ({ ...o, protectEditing: true })), weight: 1 },
    )
    .map((options) => ({ options })),
  "mnote.page.create": fc.constantFrom("New A", "New B").map((title) => ({ title, markdown: title })),
  "mnote.artifact.create_summary": fc.constantFrom("S one", "S two ", "S three").map((summary) => ({ summary })),
  "mnote.artifact.create_ai_note": fc.constantFrom("N one", "N two").map((content) => ({ content })),
  // A block the page may or may not still hold: a comment on a deleted block is refused.
  "mnote.comment.create": fc
    .tuple(fc.constantFrom("h1", "p1", "x1", "e1"), fc.constantFrom("C one", "C two"))
    .map(([blockId, markdown]) => ({ blockId, markdown })),
};
const keyArb: fc.Arbitrary<KeyRef> = fc.oneof(
  { arbitrary: fc.constant({ fresh: true as const }), weight: 3 },
  { arbitrary: fc.nat(20).map((reuse) => ({ reuse })), weight: 2 },
);
/**
 * The writes the model follows, all on its one page. A page.create writes another page, whose id its key names: its
 * contract (checks, dry run, key, approval, revert) is page-create.test.ts's, and it leaves this page as it was.
 */
const MODELED_WRITES = WRITE_TOOLS.filter((tool) => tool !== "mnote.page.create");
const writeArb: fc.Arbitrary<Step> = fc.constantFrom(...MODELED_WRITES).chain((tool) =>
  fc.record({
    kind: fc.constant("write" as const),
    tool: fc.constant(tool),
    actor: actorArb,
    args: argsArb[tool],
    key: keyArb,
    dryRun: fc.boolean(),
    base: baseArb,
  }),
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: writeArb, weight: 6 },
  {
    arbitrary: fc.record({
      kind: fc.constant("retry" as const),
      index: fc.nat(60),
      dryRun: fc.boolean(),
      base: baseArb,
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("get" as const),
      actor: actorArb,
      doc: fc.constantFrom<"main" | "private">("main", "private"),
      read: fc.constantFrom<Record<string, unknown>>(
        {},
        {},
        { outline: true },
        { search: "ALPHA" },
        { search: "a", limit: 1 },
        { startBlockId: "p1", limit: 2 },
        { startBlockId: "x2" },
        { includeBlocks: false, includeBody: false },
      ),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("bad" as const),
      tool: fc.constantFrom(...TOOL_NAMES),
      actor: actorArb,
      spoil: fc.nat(5),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("unauthenticated" as const), tool: fc.constantFrom(...TOOL_NAMES) }),
    weight: 1,
  },
);

// ---------- the model ----------

interface Recorded {
  fingerprint: string;
  commandId: string;
  result: unknown;
}
interface Model {
  revision: number;
  title: string;
  options: PageOptions;
  blocks: Block[];
  summary: string | null;
  aiNotes: number;
  /** Comments written (each call here starts a thread). */
  comments: number;
  /** (user, tool, key) → what the first applied call recorded. */
  keys: Map<string, Recorded>;
  pageCommands: number;
  commands: number;
  /** Writes as sent, for retries. */
  sent: Array<{ tool: WriteToolName; actor: Actor; args: Record<string, unknown>; key: string }>;
}

const userOf = (actor: Actor) => (actor === "ownerAgent" ? "owner" : actor);
const isPageTool = (tool: WriteToolName) => TOOLS[tool].capability === "page.write";

/** The payload as idempotency compares it: parsed args (defaults, trimming), baseRevision left out. */
function payloadOf(tool: WriteToolName, args: Record<string, unknown>) {
  const { baseRevision: _b, ...payload } = TOOLS[tool].args.parse(args) as Record<string, unknown>;
  return canonicalJson(payload);
}

type Expected =
  | { ok: false; code: ToolErrorCode }
  | { ok: true; effect: "read" }
  | { ok: true; effect: "dry_run"; warnings: string[] }
  | { ok: true; effect: "write"; replay: Recorded }
  | { ok: true; effect: "write"; apply: true };

/** What the contract says a write must answer, in the order the checks run. */
function expectWrite(
  model: Model,
  w: {
    tool: WriteToolName;
    actor: Actor;
    args: Record<string, unknown>;
    key: string;
    dryRun: boolean;
    baseRevision?: number;
  },
): Expected {
  const user = userOf(w.actor);
  if (user === "stranger" || user === "viewer") return { ok: false, code: "mnote_tool_permission_denied" };
  const recorded = model.keys.get(`${user}|${w.tool}|${w.key}`);
  if (recorded && recorded.fingerprint !== payloadOf(w.tool, w.args))
    return { ok: false, code: "mnote_tool_idempotency_conflict" };
  if (recorded && !w.dryRun) return { ok: true, effect: "write", replay: recorded };
  if (w.baseRevision !== undefined && w.baseRevision !== model.revision)
    return { ok: false, code: "mnote_tool_conflict" };
  let deletesMany = false;
  if (w.tool === "mnote.page.save") {
    const content = (w.args.content as Array<{ id?: string }>).flatMap((b) => (b.id ? [b.id] : []));
    if (new Set(content).size !== content.length) return { ok: false, code: "mnote_tool_invalid_input" };
    const onPage = new Set(model.blocks.map((b) => b.id));
    if (w.args.mode === "append" && content.some((id) => onPage.has(id)))
      return { ok: false, code: "mnote_tool_invalid_input" };
    if (w.args.mode !== "append" && !w.args.allowDeletes) {
      const kept = new Set(content);
      deletesMany = deletesTooMany(model.blocks.filter((b) => !kept.has(b.id)).length, model.blocks.length);
    }
  }
  if (w.tool === "mnote.comment.create" && !model.blocks.some((b) => b.id === w.args.blockId))
    return { ok: false, code: "mnote_tool_invalid_input" };
  if (w.tool === "mnote.page.edit" && editResult(model, w.args) === "rejected")
    return { ok: false, code: "mnote_tool_invalid_input" };
  const unwired = w.tool === "mnote.page.update_options" && "protectEditing" in (w.args.options as object);
  if (w.dryRun) {
    return {
      ok: true,
      effect: "dry_run",
      warnings: [
        ...(deletesMany ? ["deletes_many_blocks"] : []),
        ...(unwired ? ["option_not_wired"] : []),
        ...(recorded ? ["already_applied"] : []),
      ],
    };
  }
  if (deletesMany) return { ok: false, code: "mnote_tool_invalid_input" };
  if (unwired) return { ok: false, code: "mnote_tool_option_unsupported" };
  return { ok: true, effect: "write", apply: true };
}

/** The model's page after an edit (every inserted block has its id here), or "rejected". */
function editResult(model: Model, args: Record<string, unknown>): Block[] | "rejected" {
  const { operations } = TOOLS["mnote.page.edit"].args.parse(args);
  try {
    return applyBlockEdits(model.blocks, operations as BlockEditOperation[]);
  } catch (error) {
    if (error instanceof EditRejected) return "rejected";
    throw error;
  }
}

/** What page.get answers for a readable main page, from the model alone. */
function expectedRead(
  model: Model,
  w: World,
  read: Record<string, unknown>,
): { code: ToolErrorCode } | Record<string, unknown> {
  const blocks = model.blocks;
  const base = {
    documentId: w.ids.page,
    workspaceId: w.ids.ws,
    title: model.title,
    revision: model.revision,
    contentNotice: PAGE_CONTENT_IS_DATA,
    pageOptions: model.options,
  };
  if (read.includeBlocks === false) return base;
  const windowOf = (start: number, count: number, more: boolean) => ({
    start,
    count,
    totalBlocks: blocks.length,
    nextCursor: more ? expect.any(String) : null,
  });
  const body = { ...base, bodySummary: expect.any(String) };
  if (read.outline) {
    const headings = blocks.flatMap((block, index) => (block.type === "heading" ? [{ block, index }] : []));
    const outline = headings.map(({ block, index }, i) => ({
      id: block.id,
      index,
      level: (block as { level: number }).level,
      text: block.text,
      blocksUnder: (headings[i + 1]?.index ?? blocks.length) - index - 1,
    }));
    return { ...body, outline, window: windowOf(outline[0]?.index ?? 0, outline.length, false) };
  }
  if (typeof read.search === "string") {
    const term = read.search.toLowerCase();
    const found = blocks.flatMap((block, index) => (block.text.toLowerCase().includes(term) ? [{ block, index }] : []));
    const shown = found.slice(0, (read.limit as number | undefined) ?? found.length);
    const matches = shown.map(({ block, index }) => ({ id: block.id, index, type: block.type, snippet: block.text }));
    return { ...body, matches, window: windowOf(shown[0]?.index ?? 0, shown.length, found.length > shown.length) };
  }
  let start = 0;
  if (typeof read.startBlockId === "string") {
    start = blocks.findIndex((block) => block.id === read.startBlockId);
    if (start < 0) return { code: "mnote_tool_invalid_input" };
  }
  const shown = blocks.slice(start, start + ((read.limit as number | undefined) ?? blocks.length));
  return { ...body, blocks: shown, window: windowOf(start, shown.length, start + shown.length < blocks.length) };
}

/** Apply a landed write to the model; generated block ids are learned from the page. */
function applyWrite(model: Model, tool: WriteToolName, args: Record<string, unknown>, actual: Block[]) {
  model.commands++;
  if (isPageTool(tool)) {
    model.pageCommands++;
    model.revision++;
  }
  const parsed = TOOLS[tool].args.parse(args) as Record<string, unknown>;
  switch (tool) {
    case "mnote.page.save": {
      const content = (parsed.content as unknown[]).map((b) => BlockInputSchema.parse(b)) as Array<
        Block & { id?: string }
      >;
      const next = parsed.mode === "append" ? [...model.blocks, ...content] : content;
      expect(actual).toHaveLength(next.length);
      model.blocks = next.map((block, i) => {
        const learned = actual[i]!;
        if (!block.id) expect(learned.id).toMatch(/^b[0-9a-f]{15}$/);
        return { ...block, id: block.id ?? learned.id };
      });
      break;
    }
    case "mnote.page.edit":
      model.blocks = editResult(model, args) as Block[];
      break;
    case "mnote.page.update_title":
      model.title = parsed.title as string;
      break;
    case "mnote.page.update_options":
      model.options = { ...model.options, ...(parsed.options as Partial<PageOptions>) };
      break;
    case "mnote.artifact.create_summary":
      model.summary = parsed.summary as string;
      break;
    case "mnote.artifact.create_ai_note":
      model.aiNotes++;
      break;
    case "mnote.comment.create":
      model.comments++;
      break;
  }
}

// ---------- running one step ----------

/** The business tables but the audit log and its proposals index. */
const tables = (snap: Snapshot) =>
  Object.fromEntries(Object.entries(snap).filter(([table]) => table !== "audit_log" && table !== "proposals"));

function spoilInput(w: World, tool: ToolName, actor: Actor, spoil: number): unknown {
  const sample = tool === "mnote.page.get" ? {} : { dryRun: false };
  const input = w.envelope(tool, {}, { actorId: w.ids[userOf(actor)], ...sample }) as unknown as Record<
    string,
    unknown
  >;
  switch (spoil) {
    case 0: {
      const { workspaceId: _w, ...rest } = input;
      return rest;
    }
    case 1:
      return { ...input, args: { surprise: true } };
    case 2:
      return "not an envelope";
    case 3:
      return { ...input, toolName: TOOL_NAMES.find((n) => n !== tool) };
    case 4:
      return { ...input, capabilityScope: ["page.everything"] };
    default:
      // Writes: empty args miss their required field. Reads: args must be an object.
      return TOOLS[tool].kind === "read" ? { ...input, args: [] } : input;
  }
}

async function runSequence(open: () => Promise<SqlKernel>, steps: Step[]) {
  const w = await createWorld(open);
  const model: Model = {
    revision: 1,
    title: "Project plan",
    options: { ...DEFAULT_PAGE_OPTIONS },
    blocks: await w.kernel.getBlocks(w.ids.page),
    summary: null,
    aiNotes: 0,
    comments: 0,
    keys: new Map(),
    pageCommands: 0,
    commands: 0,
    sent: [],
  };
  const tokenOf = (actor: Actor) => w.tokens[actor];
  const baseOf = (base: Base) =>
    base === "none"
      ? undefined
      : base === "current"
        ? model.revision
        : model.revision > 1
          ? model.revision - 1
          : model.revision + 1;
  let before = await w.kernel.admin.tableSnapshot();
  try {
    for (const [n, step] of steps.entries()) {
      let tool: ToolName;
      let out: OutputEnvelope;
      let expected: Expected;
      let written: { tool: WriteToolName; args: Record<string, unknown>; key: string } | null = null;

      if (step.kind === "get") {
        tool = "mnote.page.get";
        const user = userOf(step.actor);
        const documentId = step.doc === "main" ? w.ids.page : w.ids.privatePage;
        out = await w.call(
          tool,
          w.envelope(tool, step.read, { actorId: w.ids[user], documentId }),
          tokenOf(step.actor),
        );
        const readable = user !== "stranger" && (step.doc === "main" || user === "owner");
        expected = readable ? { ok: true, effect: "read" } : { ok: false, code: "mnote_tool_permission_denied" };
        if (readable && step.doc === "main") {
          const read = expectedRead(model, w, step.read);
          if ("code" in read) expected = { ok: false, code: read.code as ToolErrorCode };
          else expect(out.result).toEqual(read);
        } else if (readable && "startBlockId" in step.read) {
          // The private page holds other blocks: a window from one of these ids is refused the same way.
          expected = { ok: false, code: "mnote_tool_invalid_input" };
        }
      } else if (step.kind === "bad") {
        tool = step.tool;
        out = await w.call(tool, spoilInput(w, tool, step.actor, step.spoil), tokenOf(step.actor));
        expected = { ok: false, code: "mnote_tool_invalid_input" };
      } else if (step.kind === "unauthenticated") {
        tool = step.tool;
        out = await w.call(tool, w.envelope(tool, {}, tool === "mnote.page.get" ? {} : { dryRun: true }), null);
        expected = { ok: false, code: "mnote_tool_unauthenticated" };
      } else {
        // A write, or a retry of one sent before (same actor, tool, args and key).
        let call: { tool: WriteToolName; actor: Actor; args: Record<string, unknown>; key: string };
        if (step.kind === "retry" && model.sent.length > 0) {
          call = model.sent[step.index % model.sent.length]!;
        } else if (step.kind === "write") {
          // A reused key is one this actor already sent to this tool (the same scope), with new
          // args: a conflict when they differ, a replay when they happen to be the same payload.
          const earlier = model.sent.filter((s) => s.tool === step.tool);
          const reused = "reuse" in step.key && earlier.length > 0 ? earlier[step.key.reuse % earlier.length]! : null;
          call = {
            tool: step.tool,
            actor: reused?.actor ?? step.actor,
            args: step.args,
            key: reused?.key ?? `key_${n}`,
          };
          model.sent.push(call);
        } else {
          call = { tool: "mnote.artifact.create_ai_note", actor: "owner", args: { content: "first" }, key: `key_${n}` };
          model.sent.push(call);
        }
        tool = call.tool;
        const baseRevision = baseOf(step.base);
        const args = baseRevision === undefined ? call.args : { ...call.args, baseRevision };
        expected = expectWrite(model, { ...call, dryRun: step.dryRun, baseRevision });
        out = await w.call(
          call.tool,
          w.envelope(call.tool, args, {
            actorId: w.ids[userOf(call.actor)],
            idempotencyKey: call.key,
            dryRun: step.dryRun,
          }),
          tokenOf(call.actor),
        );
        written = { tool: call.tool, args, key: `${userOf(call.actor)}|${call.tool}|${call.key}` };
      }

      // --- the envelope
      const where = `step ${n} ${JSON.stringify(step)} → ${JSON.stringify(out.error ?? out.audit)}`;
      OutputEnvelopeSchema.parse(out);
      expectEnvelopeShape(out, tool);
      expect(out.toolName, where).toBe(tool);
      expect(out.ok, where).toBe(expected.ok);
      if (!expected.ok) {
        expect(out.error!.code, where).toBe(expected.code);
        expect(JSON.stringify(out), where).not.toContain(w.SECRET);
      } else {
        expect(out.audit.effect, where).toBe(expected.effect);
      }

      // --- the database
      const after = await w.kernel.admin.tableSnapshot();
      expect(after.audit_log!.length - before.audit_log!.length, where).toBe(1);
      const applied = expected.ok && expected.effect === "write" && "apply" in expected;
      if (!applied) {
        // Failures, reads, dry runs and replays change nothing but the audit log.
        const same = JSON.stringify(tables(after)) === JSON.stringify(tables(before));
        if (!same) expect(tables(after), where).toEqual(tables(before));
      }
      if (expected.ok && expected.effect === "dry_run") {
        const preview = DryRunResultSchema.parse(out.result);
        expect(preview.baseRevision, where).toBe(model.revision);
        expect(
          preview.warnings.map((x) => x.code),
          where,
        ).toEqual(expected.warnings);
        expect(out.audit.commandId).toBeNull();
      }
      if (expected.ok && expected.effect === "write" && "replay" in expected) {
        expect(out.audit.commandId, where).toBe(expected.replay.commandId);
        expect(out.result, where).toEqual(expected.replay.result);
      }
      if (applied && written) {
        expect(after.commands!.length - before.commands!.length, where).toBe(1);
        const hadSummary = model.summary !== null;
        applyWrite(model, written.tool, written.args, await w.kernel.getBlocks(w.ids.page));
        model.keys.set(written.key, {
          fingerprint: payloadOf(written.tool, written.args),
          commandId: out.audit.commandId!,
          result: out.result,
        });
        if (isPageTool(written.tool)) expect((out.result as { revision: number }).revision, where).toBe(model.revision);
        if (written.tool === "mnote.artifact.create_summary") {
          expect((out.result as { created: boolean }).created, where).toBe(!hadSummary);
        }
      }

      // --- the invariants
      const page = (await w.kernel.getPage(w.ids.page))!;
      expect(page.revision, where).toBe(model.revision);
      expect(model.revision).toBe(1 + model.pageCommands);
      expect(page.title, where).toBe(model.title);
      expect(page.options, where).toEqual(model.options);
      const blocks = await w.kernel.getBlocks(w.ids.page);
      if (JSON.stringify(blocks) !== JSON.stringify(model.blocks)) expect(blocks, where).toEqual(model.blocks);
      const auditRows = after.audit_log as Array<{ outcome: string; effect: string; command_id: string | null }>;
      const appliedAudits = auditRows.filter((r) => r.outcome === "ok" && r.effect === "write");
      expect(after.commands!.length, where).toBe(model.commands);
      expect(appliedAudits.length, where).toBe(model.commands);
      expect(new Set(appliedAudits.map((r) => r.command_id)).size).toBe(model.commands);
      const { nodes, edges } = await w.kernel.listArtifacts(w.ids.page);
      expect(
        nodes.filter((x) => x.kind === "summary").map((x) => x.content),
        where,
      ).toEqual(model.summary === null ? [] : [model.summary]);
      expect(nodes.filter((x) => x.kind === "ai_note").length, where).toBe(model.aiNotes);
      expect(edges.length, where).toBe(nodes.length);
      const threads = await w.kernel.listCommentThreads({ documentId: w.ids.page, includeResolved: true, limit: 1000 });
      expect(threads.flatMap((t) => t.comments).length, where).toBe(model.comments);
      before = after;
    }
  } finally {
    await w.kernel.close();
  }
}

/**
 * Runs per kernel; MNOTE_MODEL_RUNS raises it for a long soak or lowers it on a slow machine.
 * The PostgreSQL kernels run the same SQL as SQLite through another driver and cost ~10x per
 * step, so they get a third of the runs: enough to exercise their dialect, not the model again.
 */
const NUM_RUNS = Number(process.env.MNOTE_MODEL_RUNS ?? 25);
const runsFor = (kernelName: string) =>
  kernelName.startsWith("SQLite") ? NUM_RUNS : Math.max(1, Math.ceil(NUM_RUNS / 3));

describe.each(kernelPerDatabaseKind())("contract model ($name)", ({ name, open }) => {
  it("random sequences of the seven tools keep to the model and the invariants", { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 30, maxLength: 60 }), (steps) => runSequence(open, steps)),
      { numRuns: runsFor(name) },
    );
  });
});
