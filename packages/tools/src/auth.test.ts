import { type Capability, TOOL_ERROR_MESSAGES as M, TOOL_NAMES, TOOLS } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import {
  ARTIFACT_WRITE_TOOLS,
  expectFailure,
  expectOk,
  expectOnlyAuditGrew,
  PAGE_WRITE_TOOLS,
  snapshot,
  useWorlds,
} from "./test-contract";
import { testKernels } from "./test-kernels";
import { SAMPLE_ARGS, type World } from "./test-support";

/**
 * Rule 3: a bearer token issued by mnote maps to a user; no, unknown, revoked or expired
 * token → unauthenticated; actorId must be the token's user; capabilityScope must cover
 * the tool and may not exceed the token's scopes.
 */

type BadCredential = [name: string, credential: (w: World) => Promise<string | null>];
const BAD_CREDENTIALS: BadCredential[] = [
  ["no token", async () => null],
  ["an empty Authorization header", async () => ""],
  ["a bare 'Bearer'", async () => "Bearer "],
  ["an unknown token", async () => "Bearer mnt_this-token-was-never-issued"],
  [
    "a token hash instead of the token",
    async (w) => {
      const { record } = await w.newToken(w.ids.owner);
      return `Bearer ${record.id}`;
    },
  ],
  [
    "a revoked token",
    async (w) => {
      const { token, record } = await w.newToken(w.ids.owner);
      await w.kernel.admin.revokeToken(record.id);
      return `Bearer ${token}`;
    },
  ],
  [
    "an expired token",
    async (w) => {
      // ttlSeconds -1 stores expires_at one second in the past.
      const { token, record } = await w.newToken(w.ids.owner, undefined, -1);
      expect(Date.parse(record.expiresAt!)).toBeLessThan(Date.now());
      return `Bearer ${token}`;
    },
  ],
];

describe.each(testKernels())("authentication and capability scope ($name)", ({ open }) => {
  const world = useWorlds(open);

  describe.each(TOOL_NAMES)("%s", (tool) => {
    it.each(BAD_CREDENTIALS)("%s → mnote_tool_unauthenticated, nothing written", async (_name, credential) => {
      const w = await world();
      const authorization = await credential(w);
      const before = await snapshot(w);
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool]), authorization);
      expectFailure(out, "mnote_tool_unauthenticated", M.unauthenticated);
      const [record] = await expectOnlyAuditGrew(w, before);
      expect(record!.identity.tokenId).toBeNull();
      expect(record!.errorCode).toBe("mnote_tool_unauthenticated");
    });

    it("actorId other than the token's user → mnote_tool_unauthenticated naming actorId", async () => {
      const w = await world();
      const before = await snapshot(w);
      // The editor's token, claiming to act as the owner.
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { actorId: w.ids.owner }), w.tokens.editor);
      expectFailure(out, "mnote_tool_unauthenticated", M.actorMismatch);
      expect(out.error!.message).toContain("actorId");
      await expectOnlyAuditGrew(w, before);
    });

    it("capabilityScope without the tool's capability → permission_denied naming it", async () => {
      const w = await world();
      const capability = TOOLS[tool].capability;
      const scope = (["page.read", "page.write", "artifact.write"] as Capability[]).filter((c) => c !== capability);
      const before = await snapshot(w);
      const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { capabilityScope: scope }));
      expectFailure(out, "mnote_tool_permission_denied", M.scopeMissing(capability));
      await expectOnlyAuditGrew(w, before);
    });

    it("a token issued with only page.read cannot widen its scope", async () => {
      const w = await world();
      const { token } = await w.newToken(w.ids.owner, ["page.read"]);
      const before = await snapshot(w);
      const out = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { capabilityScope: ["page.read", TOOLS[tool].capability] }),
        `Bearer ${token}`,
      );
      // A read tool asks for page.read only, which the token holds; every other tool asks for more.
      if (TOOLS[tool].capability === "page.read") expectOk(out, "read");
      else expectFailure(out, "mnote_tool_permission_denied", M.scopeExceedsToken);
      await expectOnlyAuditGrew(w, before);
    });
  });

  it("a token with time left, bare or with 'Bearer' in any case, authenticates", async () => {
    const w = await world();
    const { token, record } = await w.newToken(w.ids.owner, ["page.read"], 3600);
    expect(Date.parse(record.expiresAt!)).toBeGreaterThan(Date.now());
    for (const authorization of [token, `Bearer ${token}`, `bearer ${token}`, `BEARER  ${token} `]) {
      const out = await w.call(
        "mnote.page.get",
        w.envelope("mnote.page.get", {}, { capabilityScope: ["page.read"] }),
        authorization,
      );
      expect(expectOk(out, "read")).toMatchObject({ documentId: w.ids.page, revision: 1 });
    }
  });

  it("the audit record of an authenticated call names the token and the holder", async () => {
    const w = await world();
    const { token, record: tokenRecord } = await w.newToken(w.ids.owner, ["page.read"], null, "agent");
    const before = await snapshot(w);
    expectOk(
      await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { capabilityScope: ["page.read"] }), token),
    );
    const [record] = await expectOnlyAuditGrew(w, before);
    expect(record!.identity).toMatchObject({ tokenId: tokenRecord.id, holder: "agent", actorId: w.ids.owner });
  });

  it("a page.read-only token reads but its write calls are refused (scope exceeds, or scope lacks)", async () => {
    const w = await world();
    const { token } = await w.newToken(w.ids.owner, ["page.read"]);
    expectOk(
      await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { capabilityScope: ["page.read"] }), token),
      "read",
    );
    for (const tool of PAGE_WRITE_TOOLS) {
      const exceeds = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { capabilityScope: ["page.read", "page.write"] }),
        token,
      );
      expectFailure(exceeds, "mnote_tool_permission_denied", M.scopeExceedsToken);
      const lacks = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool], { capabilityScope: ["page.read"] }), token);
      expectFailure(lacks, "mnote_tool_permission_denied", M.scopeMissing("page.write"));
    }
    expect(await w.kernel.getPage(w.ids.page)).toMatchObject({ title: "Project plan", revision: 1 });
  });

  it("artifact.write is its own capability: a page.write token cannot create artifacts, an artifact.write one can", async () => {
    const w = await world();
    const pageOnly = (await w.newToken(w.ids.owner, ["page.read", "page.write"])).token;
    const artifactOnly = (await w.newToken(w.ids.owner, ["artifact.write"])).token;
    for (const tool of ARTIFACT_WRITE_TOOLS) {
      const denied = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { capabilityScope: ["page.read", "page.write"] }),
        pageOnly,
      );
      expectFailure(denied, "mnote_tool_permission_denied", M.scopeMissing("artifact.write"));
      const allowed = await w.call(
        tool,
        w.envelope(tool, SAMPLE_ARGS[tool], { capabilityScope: ["artifact.write"] }),
        artifactOnly,
      );
      expectOk(allowed, "write");
    }
    const { nodes } = await w.kernel.listArtifacts(w.ids.page);
    expect(nodes.map((n) => n.kind).sort()).toEqual(["ai_note", "summary"]);
  });

  it("revoking a token takes effect on the next call", async () => {
    const w = await world();
    const { token, record } = await w.newToken(w.ids.owner);
    expectOk(await w.call("mnote.page.get", w.envelope("mnote.page.get"), token));
    await w.kernel.admin.revokeToken(record.id);
    expectFailure(await w.call("mnote.page.get", w.envelope("mnote.page.get"), token), "mnote_tool_unauthenticated");
  });
});
