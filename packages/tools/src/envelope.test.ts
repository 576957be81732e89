import {
  isWorkspaceTool,
  PAGE_CONTENT_IS_DATA,
  TOOL_ERROR_MESSAGES as M,
  TOOLS,
  toProviderName,
} from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { expectEnvelopeShape, expectFailure, expectOk, PAGE_TOOLS, useWorlds, WRITE_TOOLS } from "./test-contract";
import { testKernels } from "./test-kernels";
import { SAMPLE_ARGS } from "./test-support";

/** Rule 1: the input and output envelopes are exactly the contract's (seed §2, §3). */
describe.each(testKernels())("envelope ($name)", ({ open }) => {
  const world = useWorlds(open);

  describe.each(PAGE_TOOLS)("%s", (tool) => {
    const kind = TOOLS[tool].kind;

    it.each([tool, toProviderName(tool)])(
      "success through callTool(%s) is the contract's envelope, toolName canonical",
      async (name) => {
        const w = await world();
        const input = w.envelope(tool, SAMPLE_ARGS[tool]);
        const out = await w.call(name, input);
        expectEnvelopeShape(out, tool);
        expect(out).toEqual({
          ok: true,
          toolName: tool,
          toolCallId: input.toolCallId,
          traceId: input.traceId,
          result: expect.any(Object),
          audit: {
            effect: kind === "read" ? "read" : "write",
            commandId: kind === "read" ? null : expect.stringMatching(/^cmd_/),
            workspaceId: w.ids.ws,
            documentId: isWorkspaceTool(tool) ? null : w.ids.page,
          },
          error: null,
        });
      },
    );

    it("the provider spelling is accepted inside the envelope too, and answered canonically", async () => {
      const w = await world();
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { toolName: toProviderName(tool) }));
      expect(out.ok).toBe(true);
      expect(out.toolName).toBe(tool);
    });

    it("failure is the contract's envelope: result null, effect none, error {code, message}", async () => {
      const w = await world();
      const input = w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.stranger });
      const out = await w.call(toProviderName(tool), input, w.tokens.stranger);
      expectEnvelopeShape(out, tool);
      expect(out).toEqual({
        ok: false,
        toolName: tool,
        toolCallId: input.toolCallId,
        traceId: input.traceId,
        result: null,
        audit: {
          effect: "none",
          commandId: null,
          workspaceId: w.ids.ws,
          documentId: isWorkspaceTool(tool) ? null : w.ids.page,
        },
        error: {
          code: "mnote_tool_permission_denied",
          message: isWorkspaceTool(tool) ? M.workspaceUnreadable : M.pageUnreadable,
        },
      });
    });

    it("a non-object input still gets a full envelope, with nothing echoed", async () => {
      const w = await world();
      for (const raw of ["hello", 42, null, undefined, [w.envelope(tool)]]) {
        const out = await w.call(tool, raw);
        expectFailure(out, "mnote_tool_invalid_input", /^input:/);
        expect(out).toMatchObject({
          toolName: tool,
          toolCallId: null,
          traceId: null,
          audit: { effect: "none", commandId: null, workspaceId: null, documentId: null },
        });
      }
    });

    it("an over-long toolCallId is refused and not echoed back", async () => {
      const w = await world();
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { toolCallId: "c".repeat(300) }));
      expectFailure(out, "mnote_tool_invalid_input", /toolCallId/);
      expect(out.toolCallId).toBeNull();
      expect(out.traceId).toBe("trace_1");
    });
  });

  it("the typed tRPC caller answers the same envelope as callTool", async () => {
    const w = await world();
    const input = w.envelope("mnote.page.get");
    const out = await w.caller().mnote.page.get(input);
    expectEnvelopeShape(out, "mnote.page.get");
    expect(out.result).toEqual({
      documentId: w.ids.page,
      workspaceId: w.ids.ws,
      title: "Project plan",
      revision: 1,
      bodySummary: "Plan First paragraph",
      pageOptions: { wideLayout: false, smallText: false, showToc: false, protectEditing: false },
      blocks: [
        { id: "h1", type: "heading", level: 1, text: "Plan" },
        { id: "p1", type: "paragraph", text: "First paragraph" },
      ],
      contentNotice: PAGE_CONTENT_IS_DATA,
      window: { start: 0, count: 2, totalBlocks: 2, nextCursor: null },
    });
    expect(out.toolCallId).toBe(input.toolCallId);
  });

  it("page.get include flags drop the fields they name", async () => {
    const w = await world();
    const result = expectOk(
      await w.call(
        "mnote.page.get",
        w.envelope("mnote.page.get", { includeBody: false, includeOptions: false, includeBlocks: false }),
      ),
      "read",
    );
    expect(result).toEqual({
      documentId: w.ids.page,
      workspaceId: w.ids.ws,
      title: "Project plan",
      revision: 1,
      contentNotice: PAGE_CONTENT_IS_DATA,
    });
  });

  it("the seed's page.save success example: result {commandName, revision}, effect write", async () => {
    const w = await world();
    const out = await w.caller().mnote.page.save(w.envelope("mnote.page.save", SAMPLE_ARGS["mnote.page.save"]));
    expect(out.result).toEqual({ commandName: "page.body.save", revision: 2 });
    expect(out.audit.effect).toBe("write");
  });

  it.each(WRITE_TOOLS)("the four effects: %s answers write, dry_run, and none on failure", async (tool) => {
    const w = await world();
    const dry = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { dryRun: true }));
    expect(dry.audit).toMatchObject({ effect: "dry_run", commandId: null });
    expect(dry.result).toMatchObject({ dryRun: true });
    const real = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool]));
    expect(real.audit.effect).toBe("write");
    expect(real.audit.commandId).toMatch(/^cmd_/);
    const failed = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.viewer }), w.tokens.viewer);
    expect(failed.audit).toEqual({ effect: "none", commandId: null, workspaceId: w.ids.ws, documentId: w.ids.page });
  });

  it("an unknown tool name answers mnote_tool_not_found in an envelope", async () => {
    const w = await world();
    const out = await w.call("mnote.page.delete", w.envelope("mnote.page.get"));
    expectEnvelopeShape(out);
    expect(out.error).toEqual({ code: "mnote_tool_not_found", message: M.unknownTool("mnote.page.delete") });
  });
});
