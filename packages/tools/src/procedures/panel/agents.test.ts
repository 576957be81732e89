import { TRPCError } from "@trpc/server";
import { beforeEach, describe, expect, it } from "vitest";
import { createWorld, type World } from "../../test-support";
import { panelAs } from "./test-panel";

/** "Connect an agent": a person's own agent tokens, minted, listed and revoked in the panel. */
describe("panel.agents", () => {
  let w: World;
  beforeEach(async () => {
    w = await createWorld();
  });

  const code = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TRPCError);
    return (error as TRPCError).code;
  };

  it("mints an agent token shown once, which acts for the person at the agent doors only, held by the policy", async () => {
    const created = await panelAs(w, w.tokens.owner).agents.create({
      label: "Hermes on my laptop",
      scopes: ["page.read", "page.write"],
      expiresInDays: 30,
    });
    expect(created.token).toMatch(/^mnt_/);
    expect(Date.parse(created.expiresAt!) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    const listed = await panelAs(w, w.tokens.owner).agents.list();
    expect(listed).toHaveLength(2); // the world's own agent token of the owner, and this one
    expect(listed[0]).toMatchObject({ id: created.id, label: "Hermes on my laptop", live: true, lastUsedAt: null });
    expect(JSON.stringify(listed)).not.toContain(created.token);

    // It reads at the bridge door as the owner's agent…
    const scope = { capabilityScope: created.scopes };
    const read = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, scope),
      created.token,
      undefined,
      "agent",
    );
    expect(read).toMatchObject({ ok: true });
    expect((await panelAs(w, w.tokens.owner).agents.list())[0]!.lastUsedAt).not.toBeNull();
    // …is no session at the panel…
    expect(await code(panelAs(w, created.token).session.me())).toBe("FORBIDDEN");
    // …and its page writes wait for a person where the workspace asks for it.
    await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
    const write = await w.call(
      "mnote.page.update_title",
      w.envelope("mnote.page.update_title", { title: "By the agent" }, scope),
      created.token,
      undefined,
      "agent",
    );
    expect(write).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
  });

  it("revokes one of your tokens: its next call is refused; another person's is not yours to see or revoke", async () => {
    const created = await panelAs(w, w.tokens.owner).agents.create({
      label: "script",
      scopes: ["page.read"],
      expiresInDays: 1,
    });
    expect(await code(panelAs(w, w.tokens.editor).agents.revoke({ tokenId: created.id }))).toBe("NOT_FOUND");
    expect((await panelAs(w, w.tokens.editor).agents.list()).map((t) => t.id)).not.toContain(created.id);
    // A person token is no agent token, even your own session.
    const session = (await w.kernel.admin.listTokens(w.ids.owner)).find((t) => t.holder === "person")!;
    expect(await code(panelAs(w, w.tokens.owner).agents.revoke({ tokenId: session.id }))).toBe("NOT_FOUND");

    const read = w.envelope("mnote.page.get", {}, { capabilityScope: ["page.read"] });
    const before = await w.call("mnote.page.get", read, created.token, undefined, "agent");
    expect(before).toMatchObject({ ok: true });
    await panelAs(w, w.tokens.owner).agents.revoke({ tokenId: created.id });
    expect((await panelAs(w, w.tokens.owner).agents.list()).find((t) => t.id === created.id)).toMatchObject({
      live: false,
      revokedAt: expect.any(String),
    });
    const after = await w.call(
      "mnote.page.get",
      { ...read, toolCallId: "call_after" },
      created.token,
      undefined,
      "agent",
    );
    expect(after).toMatchObject({ ok: false, error: { code: "mnote_tool_unauthenticated" } });
  });

  it("hands an agent no scope the session lacks, and no token to an agent", async () => {
    const { token: readOnly } = await w.newToken(w.ids.editor, ["page.read"]);
    const before = await w.kernel.admin.tableSnapshot();
    expect(
      await code(panelAs(w, readOnly).agents.create({ label: "x", scopes: ["page.write"], expiresInDays: 1 })),
    ).toBe("FORBIDDEN");
    expect(
      await code(
        panelAs(w, w.tokens.ownerAgent).agents.create({ label: "x", scopes: ["page.read"], expiresInDays: 1 }),
      ),
    ).toBe("FORBIDDEN");
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
  });

  it("refuses a nameless, scopeless or out-of-range token, writing nothing", async () => {
    const before = await w.kernel.admin.tableSnapshot();
    for (const input of [
      { label: "  ", scopes: ["page.read"], expiresInDays: 1 },
      { label: "x\u0000y", scopes: ["page.read"], expiresInDays: 1 },
      { label: "x", scopes: [], expiresInDays: 1 },
      { label: "x", scopes: ["page.admin"], expiresInDays: 1 },
      { label: "x", scopes: ["page.read"], expiresInDays: 0 },
      { label: "x", scopes: ["page.read"], expiresInDays: 366 },
      { label: "x".repeat(81), scopes: ["page.read"], expiresInDays: 1 },
    ]) {
      expect(await code(panelAs(w, w.tokens.owner).agents.create(input as never))).toBe("UNPROCESSABLE_CONTENT");
    }
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
  });

  it("audits the minting and the revocation under the person, never with the secret", async () => {
    const created = await panelAs(w, w.tokens.owner).agents.create({
      label: "audited",
      scopes: ["page.read"],
      expiresInDays: 7,
    });
    await panelAs(w, w.tokens.owner).agents.revoke({ tokenId: created.id });
    const records = (await w.kernel.admin.tableSnapshot()).audit_log as Array<{
      tool_name: string;
      actor_id: string;
      detail: string;
    }>;
    const mine = records.filter((r) => r.tool_name.startsWith("admin.token"));
    expect(mine.map((r) => [r.tool_name, r.actor_id, JSON.parse(r.detail).tokenId])).toEqual([
      ["admin.token.create", w.ids.owner, created.id],
      ["admin.token.revoke", w.ids.owner, created.id],
    ]);
    expect(JSON.stringify(records)).not.toContain(created.token);
  });
});
