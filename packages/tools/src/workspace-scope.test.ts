import {
  PAGE_TOOL_NEEDS_DOCUMENT,
  TOOL_ERROR_MESSAGES as M,
  WORKSPACE_TOOL_TAKES_NO_DOCUMENT,
  WorkspaceInputEnvelopeSchema,
} from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { askSessionId } from "./ask-session";
import type { CheckedWorkspaceCall } from "./call-state";
import { readersOf } from "./middleware/checks";
import { expectFailure, useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";
import type { World } from "./test-support";
import { toolProcedure } from "./tool-procedure";
import type { ToolSpec } from "./tool-spec";
import { createCallerFactory, router } from "./trpc";
import { AppError } from "./app-error";

/*
 * The workspace scope of the envelope (issue 34): a workspace tool's envelope names no page, and its checks are
 * login → door → envelope → capability in scope → membership → whom it acts for. A probe tool built like the
 * contract's workspace tools answers what its code was handed, so each check is seen from outside.
 */

const probeSpec: ToolSpec = {
  name: "mnote.test.workspace_probe",
  kind: "read",
  capability: "page.read",
  scope: "workspace",
  access: "page_read",
  holdsForApproval: false,
  inputSchema: WorkspaceInputEnvelopeSchema.extend({ args: z.strictObject({}) }),
};

const seen: CheckedWorkspaceCall[] = [];
const probeRouter = router({
  probe: toolProcedure(probeSpec).workspaceQuery(async (call) => {
    seen.push(call);
    return { kind: "read", result: { readers: readersOf(call), role: call.facts.role } };
  }),
});
const callerOf = createCallerFactory(probeRouter);

const envelope = (w: World, overrides: Record<string, unknown> = {}) => ({
  toolName: probeSpec.name,
  workspaceId: w.ids.ws,
  actorId: w.ids.owner,
  sessionId: "session_1",
  runId: "run_1",
  toolCallId: "call_1",
  traceId: "trace_1",
  capabilityScope: ["page.read"],
  args: {},
  ...overrides,
});
type Who = "owner" | "viewer" | "privateReader" | "stranger";
const probeAs = (w: World, who: Who, overrides: Record<string, unknown> = {}) =>
  callerOf(w.context(w.tokens[who])).probe(envelope(w, { actorId: w.ids[who], ...overrides }));

describe.each(testKernels())("workspace-scope tools ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("a member's call runs with no page, and its answer and audit name the workspace and no page", async () => {
    const w = await world();
    const out = await probeAs(w, "viewer");
    expect(out.ok).toBe(true);
    expect(out.result).toEqual({ readers: [w.ids.viewer], role: "viewer" });
    expect(out.audit).toEqual({ effect: "read", commandId: null, workspaceId: w.ids.ws, documentId: null });
    const call = seen.at(-1)!;
    expect("page" in call.facts ? call.facts.page : null).toBeNull();
    const trail = await w.kernel.listAudit({ workspaceId: w.ids.ws, toolName: probeSpec.name, limit: 5 });
    expect(trail.at(-1)?.identity).toMatchObject({
      workspaceId: w.ids.ws,
      documentId: "",
      actorId: w.ids.viewer,
    });
  });

  it("a documentId in a workspace tool's envelope is refused in words, page or not, nothing run", async () => {
    const w = await world();
    const before = seen.length;
    for (const documentId of [w.ids.page, "no_such_page", null]) {
      const out = await probeAs(w, "owner", { documentId });
      expectFailure(out, "mnote_tool_invalid_input", new RegExp(`documentId: ${WORKSPACE_TOOL_TAKES_NO_DOCUMENT}`));
      expect(out.audit.documentId).toBeNull();
    }
    expect(seen.length).toBe(before);
  });

  it("a member of another workspace hears exactly what a missing workspace answers", async () => {
    const w = await world();
    const stranger = await probeAs(w, "stranger");
    const missing = await probeAs(w, "owner", { workspaceId: "ws_that_does_not_exist" });
    expectFailure(stranger, "mnote_tool_permission_denied", M.workspaceUnreadable);
    expectFailure(missing, "mnote_tool_permission_denied", M.workspaceUnreadable);
    expect(stranger.error).toEqual(missing.error);
    expect({ ...stranger.audit, workspaceId: null }).toEqual({ ...missing.audit, workspaceId: null });
  });

  it("login and capability come first: a bad token, another actor, a scope without the capability", async () => {
    const w = await world();
    const anonymous = await callerOf(w.context("Bearer nope")).probe(envelope(w));
    expectFailure(anonymous, "mnote_tool_unauthenticated", M.unauthenticated);
    expectFailure(await probeAs(w, "owner", { actorId: w.ids.viewer }), "mnote_tool_unauthenticated", M.actorMismatch);
    expectFailure(
      await probeAs(w, "owner", { capabilityScope: ["page.write"] }),
      "mnote_tool_permission_denied",
      M.scopeMissing("page.read"),
    );
  });

  it("a call asked from the panel acts for the asker too: both must be members, and both read", async () => {
    const w = await world();
    const sessionId = askSessionId(w.ids.page);
    await w.kernel.ask.openSession({ sessionId, userId: w.ids.viewer, workspaceId: w.ids.ws, documentId: w.ids.page });
    const out = await probeAs(w, "owner", { sessionId });
    expect(out.result).toEqual({ readers: [w.ids.owner, w.ids.viewer], role: "owner" });

    // A conversation of another workspace acts for nobody here: refused as a missing workspace.
    const elsewhere = askSessionId(w.ids.otherPage);
    await w.kernel.ask.openSession({
      sessionId: elsewhere,
      userId: w.ids.stranger,
      workspaceId: w.ids.otherWs,
      documentId: w.ids.otherPage,
    });
    expectFailure(
      await probeAs(w, "owner", { sessionId: elsewhere }),
      "mnote_tool_permission_denied",
      M.workspaceUnreadable,
    );
  });

  it("a page tool without a page says so in words", async () => {
    const w = await world();
    const { documentId: _left, ...withoutPage } = w.envelope("mnote.page.get", {});
    expectFailure(
      await w.call("mnote.page.get", withoutPage),
      "mnote_tool_invalid_input",
      new RegExp(`documentId: ${PAGE_TOOL_NEEDS_DOCUMENT.replace(/[()]/g, "\\$&")}`),
    );
  });

  it("a page tool cannot be built with the workspace checks, nor a workspace tool with a page's", () => {
    expect(() => toolProcedure(probeSpec).query(async () => ({ kind: "read", result: null }))).toThrow(
      /workspace tool/,
    );
    expect(() =>
      toolProcedure("mnote.page.get").workspaceQuery(async () => ({
        kind: "refused",
        error: new AppError("mnote_tool_unavailable", "never run"),
      })),
    ).toThrow(/page tool/);
  });
});
