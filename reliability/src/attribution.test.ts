import type { RunningBridge } from "@mnote/hermes-bridge";
import { createCaller, createToolsContext } from "@mnote/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorld, postTool, startTestBridge, type World } from "./support";

/**
 * Door test (issue 11, item 3): over the bridge's HTTP door, calls without a valid token that claim the
 * owner's identity, run and trace are not recorded as hers, and no volume of calls on the page erases a
 * pending proposal or a held agent write from her panel.
 */

let world: World;
let bridge: RunningBridge;
let agent: string;

beforeAll(async () => {
  world = await createWorld({ file: true });
  bridge = await startTestBridge(world.kernel);
  await world.kernel.admin.setWorkspacePolicy(world.ids.ws, { approvalRequired: true }, { by: "test-setup" });
  agent = (
    await world.kernel.admin.createToken({
      userId: world.ids.owner,
      holder: "agent",
      scopes: world.ALL,
      label: "owner's agent",
    })
  ).token;
});
afterAll(async () => {
  await bridge?.close();
  await world?.close();
});

const ownerPanel = () =>
  createCaller(
    createToolsContext({ kernel: world.kernel, authorization: `Bearer ${world.personTokens.owner}`, door: "panel" }),
  ).panel;

describe("unauthenticated attribution and proposals under an audit flood, over HTTP", () => {
  it("forged calls are nobody's, and the owner's pending proposal and held write stay on her panel", async () => {
    const ref = { workspaceId: world.ids.ws, documentId: world.ids.page };
    const run = { sessionId: "ada_session", runId: "ada_run", traceId: "ada_trace" };
    const dryRun = world.envelope("mnote.page.update_title", { ...run, dryRun: true, args: { title: "Proposed" } });
    const held = world.envelope("mnote.page.save", { ...run });
    expect(
      (await postTool(bridge, "mnote.page.update_title", dryRun, { authorization: `Bearer ${agent}` })).json,
    ).toMatchObject({ ok: true });
    expect((await postTool(bridge, "mnote.page.save", held, { authorization: `Bearer ${agent}` })).json).toMatchObject({
      error: { code: "mnote_tool_approval_required" },
    });
    const agentRecords = (await world.kernel.listAudit({ runId: "ada_run" })).length;

    // 1,200 calls on the page: forged ones (no token, made-up tokens) claiming the owner, her run and trace,
    // and reads by a viewer. Each leaves an audit record.
    const forgedAnswers: number[] = [];
    for (let i = 0; i < 1_200; i++) {
      if (i % 6 === 0) {
        const authorization = i % 12 === 0 ? null : `Bearer mnt_forged_${i}`;
        const answer = await postTool(
          bridge,
          "mnote.page.get",
          world.envelope("mnote.page.get", { ...run, actorId: world.ids.owner }),
          { authorization },
        );
        forgedAnswers.push(answer.status);
      } else {
        await world.call(
          "mnote.page.get",
          world.envelope("mnote.page.get", { actorId: world.ids.viewer }),
          world.tokens.viewer,
        );
      }
    }
    expect(new Set(forgedAnswers)).toEqual(new Set([401]));

    // Nothing forged is hers: not in her run, not on her trace, not on the page, not under her name without a token.
    expect((await world.kernel.listAudit({ runId: "ada_run" })).length).toBe(agentRecords);
    expect(
      (await world.kernel.listAudit({ traceId: "ada_trace", limit: 1000 })).every((r) => r.identity.tokenId !== null),
    ).toBe(true);
    const forgedIds = (
      (await world.kernel.admin.tableSnapshot()).audit_log as Array<{ id: number; error_code: string | null }>
    )
      .filter((row) => row.error_code === "mnote_tool_unauthenticated")
      .map((row) => Number(row.id));
    expect(forgedIds).toHaveLength(200);
    for (const id of forgedIds) {
      const record = (await world.kernel.getAudit(id))!;
      expect(record.identity).toMatchObject({
        actorId: "",
        workspaceId: "",
        documentId: "",
        tokenId: null,
        sessionId: null,
        runId: null,
        traceId: null,
      });
      expect(record.detail).toMatchObject({ unverifiedClaims: { actorId: world.ids.owner, runId: "ada_run" } });
    }
    expect(
      (await ownerPanel().audit.list({ ...ref, limit: 500 })).some((r) => r.errorCode === "mnote_tool_unauthenticated"),
    ).toBe(false);

    // The page's audit trail has far more than 1,000 records since the proposals; both are still pending.
    expect(
      (
        await world.kernel.listAudit({
          documentId: world.ids.page,
          afterId: Math.max(...(await ownerPanel().proposals.list(ref)).map((p) => p.id)),
          limit: 1000,
        })
      ).length,
    ).toBe(1000);
    const pending = (await ownerPanel().proposals.list(ref)).filter((p) => p.status === "pending");
    expect(pending.map((p) => [p.toolCallId, p.held])).toEqual([
      [held.toolCallId, true],
      [dryRun.toolCallId, false],
    ]);
    // And the held write is still the owner's to approve: the agent's retry then replays it.
    expect(await ownerPanel().proposals.approve({ ...ref, proposalId: pending[0]!.id })).toMatchObject({ ok: true });
    const retry = await postTool(
      bridge,
      "mnote.page.save",
      { ...held, toolCallId: "retry" },
      { authorization: `Bearer ${agent}` },
    );
    expect(retry.json).toMatchObject({ ok: true, audit: { effect: "write" } });
  }, 180_000);
});
