import { randomBytes } from "node:crypto";
import {
  type Capability,
  isWorkspaceTool,
  TOOL_ERROR_MESSAGES as M,
  TOOL_NAMES,
  type ToolName,
  TOOLS,
} from "@mnote/contract";
import type { RunningBridge } from "@mnote/hermes-bridge";
import { ManualClock } from "@mnote/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businessSnapshot, createWorld, expectContractFailure, postTool, startTestBridge, type World } from "./support";

/**
 * The tools on the page their envelope names. A workspace tool names none (mnote.page.create's page is named by its
 * key, decision 0046): its checks and doors are page-create.test.ts's, the plugin tests' and e2e page-create's.
 */
const PAGE_TOOL_NAMES = TOOL_NAMES.filter((tool) => !isWorkspaceTool(tool));

/**
 * Auth: every way a caller is not who or what the call needs is refused by the bridge's
 * HTTP tool endpoint with the contract's envelope and status, and nothing is written.
 */

let world: World;
let bridge: RunningBridge;
let revoked: string;
let expired: string;
let readOnly: string;

const clock = new ManualClock();

beforeAll(async () => {
  world = await createWorld({ clock });
  bridge = await startTestBridge(world.kernel);
  const { admin } = world.kernel;
  const r = await admin.createToken({ userId: world.ids.owner, holder: "agent", scopes: world.ALL });
  await admin.revokeToken(r.record.id);
  revoked = r.token;
  expired = (await admin.createToken({ userId: world.ids.owner, holder: "agent", scopes: world.ALL, ttlSeconds: 1 }))
    .token;
  readOnly = (await admin.createToken({ userId: world.ids.owner, holder: "agent", scopes: ["page.read"] })).token;
  // The one-second token runs out.
  clock.advance(1_200);
});
afterAll(async () => {
  await bridge?.close();
  await world?.close();
});

/** Call over HTTP and check the refusal: the contract's envelope, the code, its status, and not a row written. */
async function expectDenied(
  tool: ToolName,
  envelope: Record<string, unknown>,
  authorization: string | null,
  code: "mnote_tool_unauthenticated" | "mnote_tool_permission_denied",
  message?: string,
) {
  const before = await businessSnapshot(world.kernel);
  const answer = await postTool(bridge, tool, envelope, { authorization });
  const output = expectContractFailure(answer.json, answer.status);
  expect(output.error?.code, `${tool} with ${authorization?.slice(0, 20)}: ${answer.text.slice(0, 200)}`).toBe(code);
  if (message) expect(output.error?.message).toBe(message);
  expect(answer.status).toBe(code === "mnote_tool_unauthenticated" ? 401 : 403);
  expect(await businessSnapshot(world.kernel)).toEqual(before);
  return output;
}

const bearer = (token: string) => `Bearer ${token}`;
const isWrite = (tool: ToolName) => TOOLS[tool].kind === "write";

describe.each(PAGE_TOOL_NAMES)("auth over HTTP: %s", (tool) => {
  it("missing, malformed, unknown, revoked and expired tokens: 401, nothing written", async () => {
    const envelope = () => world.envelope(tool);
    const credentials: Array<[string, string | null]> = [
      ["missing", null],
      ["empty bearer", "Bearer"],
      ["bearer of spaces", "Bearer    "],
      ["another scheme", `Basic ${Buffer.from(`owner:${world.tokens.owner}`).toString("base64")}`],
      ["two tokens", `Bearer ${world.tokens.owner} ${world.tokens.editor}`],
      [
        "a token with a character changed",
        bearer(`${world.tokens.owner.slice(0, -1)}${world.tokens.owner.endsWith("A") ? "B" : "A"}`),
      ],
      ["the token's hash, not the token", bearer("0".repeat(64))],
      ["unknown", bearer(`mnt_${randomBytes(32).toString("base64url")}`)],
      ["revoked", bearer(revoked)],
      ["expired", bearer(expired)],
    ];
    for (const [label, authorization] of credentials) {
      const output = await expectDenied(
        tool,
        envelope(),
        authorization,
        "mnote_tool_unauthenticated",
        M.unauthenticated,
      );
      expect(output.toolName, label).toBe(tool);
    }
  });

  it("actorId not the token's user: 401, nothing written", async () => {
    for (const actorId of [world.ids.editor, world.ids.stranger, "no_such_user"]) {
      await expectDenied(
        tool,
        world.envelope(tool, { actorId }),
        bearer(world.tokens.owner),
        "mnote_tool_unauthenticated",
        M.actorMismatch,
      );
    }
  });

  it("a capability scope wider than the token, or without the tool's capability: 403, nothing written", async () => {
    // The token holds page.read only; asking for more is refused even for a read.
    await expectDenied(
      tool,
      world.envelope(tool),
      bearer(readOnly),
      "mnote_tool_permission_denied",
      M.scopeExceedsToken,
    );
    const needed = TOOLS[tool].capability;
    const without = world.ALL.filter<Capability>((c): c is Capability => c !== needed);
    await expectDenied(
      tool,
      world.envelope(tool, { capabilityScope: without }),
      bearer(world.tokens.owner),
      "mnote_tool_permission_denied",
      M.scopeMissing(needed),
    );
    if (needed !== "page.read") {
      // A read-only token asking for exactly what it holds still cannot write.
      await expectDenied(
        tool,
        world.envelope(tool, { capabilityScope: ["page.read"] }),
        bearer(readOnly),
        "mnote_tool_permission_denied",
        M.scopeMissing(needed),
      );
    }
  });

  it("a page in another workspace, however it is named: 403, nothing written", async () => {
    // A workspace tool names no page: another workspace is refused as a missing one.
    const refs = isWorkspaceTool(tool)
      ? [{ workspaceId: world.ids.otherWs }]
      : [
          { workspaceId: world.ids.otherWs, documentId: world.ids.otherPage },
          { workspaceId: world.ids.ws, documentId: world.ids.otherPage },
          { workspaceId: world.ids.otherWs, documentId: world.ids.page },
        ];
    for (const ref of refs) {
      await expectDenied(
        tool,
        world.envelope(tool, ref),
        bearer(world.tokens.owner),
        "mnote_tool_permission_denied",
        isWorkspaceTool(tool) ? M.workspaceUnreadable : M.pageUnreadable,
      );
    }
  });

  // Its cases name a page (a page grant lost); a workspace tool losing membership: roles.test.ts in packages/tools.
  it.skipIf(isWorkspaceTool(tool))(
    "replaying a call after losing access (membership, page grant, token): denied, the stored result is not returned",
    async () => {
      const { admin } = world.kernel;
      const suffix = Math.random().toString(36).slice(2, 8);
      // Three users who may use the tool now: an editor (by membership), a viewer with a write grant on the private page, and one whose token goes.
      const member = (await admin.createUser({ name: `member_${suffix}` })).id;
      const granted = (await admin.createUser({ name: `granted_${suffix}` })).id;
      const tokenLoser = (await admin.createUser({ name: `loser_${suffix}` })).id;
      await admin.addMember({ workspaceId: world.ids.ws, userId: member, role: "editor" });
      await admin.addMember({ workspaceId: world.ids.ws, userId: granted, role: "viewer" });
      await admin.addMember({ workspaceId: world.ids.ws, userId: tokenLoser, role: "editor" });
      await admin.grantPage({ documentId: world.ids.privatePage, userId: granted, access: "write" });
      const memberToken = (await admin.createToken({ userId: member, holder: "agent", scopes: world.ALL })).token;
      const grantedToken = (await admin.createToken({ userId: granted, holder: "agent", scopes: world.ALL })).token;
      const loser = await admin.createToken({ userId: tokenLoser, holder: "agent", scopes: world.ALL });

      const cases = [
        {
          token: memberToken,
          envelope: world.envelope(tool, { actorId: member }),
          revoke: () => admin.removeMember({ workspaceId: world.ids.ws, userId: member }),
          code: "mnote_tool_permission_denied" as const,
        },
        {
          token: grantedToken,
          envelope: world.envelope(tool, {
            actorId: granted,
            documentId: world.ids.privatePage,
            // A comment anchors to a block of the page it is on: the private page's own.
            ...(tool === "mnote.comment.create" ? { args: { blockId: "s1", markdown: "Which **secret**?" } } : {}),
          }),
          revoke: () => admin.revokePageGrant({ documentId: world.ids.privatePage, userId: granted }),
          code: "mnote_tool_permission_denied" as const,
        },
        {
          token: loser.token,
          envelope: world.envelope(tool, { actorId: tokenLoser }),
          revoke: () => admin.revokeToken(loser.record.id),
          code: "mnote_tool_unauthenticated" as const,
        },
      ];
      for (const c of cases) {
        const first = await postTool(bridge, tool, c.envelope, { authorization: bearer(c.token) });
        expect(first.status, first.text.slice(0, 300)).toBe(200);
        await c.revoke();
        // The same envelope again: for a write, the same idempotency key and payload, whose result is stored.
        const replay = await expectDenied(tool, c.envelope, bearer(c.token), c.code);
        expect(replay.result).toBeNull();
        if (isWrite(tool))
          expect(JSON.stringify(replay)).not.toContain(
            (first.json as { audit: { commandId: string } }).audit.commandId,
          );
      }
    },
  );
});
