import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "./ids";
import { openKernel } from "./open";
import type { SqlKernel } from "./sql-kernel";
import { openTestPostgresKernel, postgresAvailability } from "./test-databases";

/**
 * The authorization server's records (decision 0027) on both dialects: a grant is one agent token whose secret
 * rotates; codes and refresh tokens are good once, and a second use revokes the grant — also when two uses race.
 */
const LIFETIMES = { accessTtlSeconds: 3600, refreshTtlSeconds: 86_400 };
const RESOURCE = "http://127.0.0.1:4100/mcp";

function oauthSuite(name: string, open: () => Promise<SqlKernel>) {
  describe(name, () => {
    let kernel: SqlKernel;
    let userId: string;
    let sessionId: string;
    beforeAll(async () => {
      kernel = await open();
      userId = (await kernel.admin.createUser({ name: "Grace" })).id;
      sessionId = (await kernel.admin.createToken({ userId, holder: "person", scopes: ["page.read", "page.write"] }))
        .record.id;
    });
    afterAll(async () => kernel?.close());

    /** A registered client and an approved request's code, not yet redeemed. */
    async function approvedCode() {
      const client = await kernel.oauth.registerClient({
        clientName: "Hermes Agent",
        redirectUris: ["http://127.0.0.1:9/callback"],
        scope: null,
      });
      const { requestSecret } = await kernel.oauth.openRequest({
        sessionTokenId: sessionId,
        userId,
        clientId: client.clientId,
        redirectUri: "http://127.0.0.1:9/callback",
        codeChallenge: "c".repeat(43),
        resource: RESOURCE,
        scopes: ["page.read"],
        state: "s",
        ttlSeconds: 600,
      });
      const decision = await kernel.oauth.decideRequest({
        requestSecret,
        sessionTokenId: sessionId,
        approve: true,
        codeTtlSeconds: 300,
      });
      if (!decision.ok || !decision.approved) throw new Error("no code");
      return { client, code: decision.code };
    }

    async function grant() {
      const { client, code } = await approvedCode();
      const pair = await kernel.oauth.redeemCode({
        code,
        check: () => null,
        label: "Hermes",
        ...LIFETIMES,
      });
      if ("error" in pair) throw new Error(pair.description);
      return { client, pair };
    }

    it("issues an agent token for the person, bound to the resource, listed once with the grant's expiry", async () => {
      const { client, pair } = await grant();
      const token = await kernel.findTokenByHash(hashToken(pair.accessToken));
      expect(token).toMatchObject({ userId, holder: "agent", scopes: ["page.read"], resource: RESOURCE });
      const next = await kernel.oauth.refresh({
        refreshToken: pair.refreshToken,
        clientId: client.clientId,
        resource: null,
        ...LIFETIMES,
      });
      if ("error" in next) throw new Error(next.description);
      expect(next.tokenId).toBe(pair.tokenId);
      expect(await kernel.findTokenByHash(hashToken(pair.accessToken))).toBeNull();
      const listed = (await kernel.admin.listTokens(userId)).filter((t) => t.id === pair.tokenId);
      expect(listed).toHaveLength(1);
      expect(Date.parse(listed[0]!.expiresAt!)).toBeGreaterThan(Date.now() + 3600_000);
      expect(await kernel.oauth.tokenResource(pair.tokenId)).toBe(RESOURCE);
    });

    it("a code its presenter cannot prove is theirs stays good for its owner, and does not revoke what it made", async () => {
      const { code } = await approvedCode();
      const wrongVerifier = { error: "invalid_grant" as const, description: "the PKCE code_verifier does not match" };
      const before = await kernel.admin.tableSnapshot();
      expect(await kernel.oauth.redeemCode({ code, check: () => wrongVerifier, label: "x", ...LIFETIMES })).toEqual(
        wrongVerifier,
      );
      expect(await kernel.admin.tableSnapshot()).toEqual(before);
      const pair = await kernel.oauth.redeemCode({ code, check: () => null, label: "Hermes", ...LIFETIMES });
      if ("error" in pair) throw new Error(pair.description);
      // After it was redeemed, a stranger's replay is refused and the owner's grant lives on.
      expect(await kernel.oauth.redeemCode({ code, check: () => wrongVerifier, label: "x", ...LIFETIMES })).toEqual(
        wrongVerifier,
      );
      expect(await kernel.findTokenByHash(hashToken(pair.accessToken))).toMatchObject({ revokedAt: null });
      // The owner's own replay (it passes the check) is the RFC's reuse: the grant is revoked.
      expect(await kernel.oauth.redeemCode({ code, check: () => null, label: "x", ...LIFETIMES })).toMatchObject({
        error: "invalid_grant",
      });
      expect(await kernel.findTokenByHash(hashToken(pair.accessToken))).toMatchObject({
        revokedAt: expect.any(String),
      });
    });

    it("two refreshes with one refresh token at once: one wins at most, and the grant ends revoked", async () => {
      const { client, pair } = await grant();
      const both = await Promise.all(
        [0, 1].map(() =>
          kernel.oauth.refresh({
            refreshToken: pair.refreshToken,
            clientId: client.clientId,
            resource: null,
            ...LIFETIMES,
          }),
        ),
      );
      expect(both.filter((outcome) => !("error" in outcome)).length).toBeLessThanOrEqual(1);
      expect(both.filter((outcome) => "error" in outcome && outcome.error === "invalid_grant")).not.toHaveLength(0);
      const row = (await kernel.admin.listTokens(userId)).find((t) => t.id === pair.tokenId);
      expect(row?.revokedAt).not.toBeNull();
      for (const outcome of both)
        if (!("error" in outcome))
          expect(await kernel.findTokenByHash(hashToken(outcome.accessToken))).toMatchObject({
            revokedAt: expect.any(String),
          });
    });

    it("the sweep removes what can grant nothing and keeps every live grant working", async () => {
      const live = await grant();
      const abandoned = await kernel.oauth.registerClient({
        clientName: "walked away",
        redirectUris: ["http://127.0.0.1:9/callback"],
        scope: null,
      });
      // Right away nothing is a day old: only refresh tokens past their expiry would go, and there are none.
      expect(await kernel.oauth.purgeExpired(new Date())).toEqual({ refreshTokens: 0, requests: 0, clients: 0 });
      // Two days on, the live grant refreshed meanwhile (its refresh token runs for a day from now).
      const later = new Date(Date.now() + 2 * 86_400_000);
      const rotated = await kernel.oauth.refresh({
        refreshToken: live.pair.refreshToken,
        clientId: live.client.clientId,
        resource: null,
        accessTtlSeconds: 3600,
        refreshTtlSeconds: 3 * 86_400,
      });
      if ("error" in rotated) throw new Error(rotated.description);
      const swept = await kernel.oauth.purgeExpired(later);
      expect(await kernel.oauth.getClient(abandoned.clientId)).toBeNull();
      expect(swept.clients).toBeGreaterThanOrEqual(1);
      // The live grant's client and its redeemed request stay; its spent refresh token (expired by then) goes, and
      // its current one still refreshes.
      expect(await kernel.oauth.getClient(live.client.clientId)).not.toBeNull();
      expect(swept.refreshTokens).toBeGreaterThanOrEqual(1);
      const again = await kernel.oauth.refresh({
        refreshToken: rotated.refreshToken,
        clientId: live.client.clientId,
        resource: null,
        ...LIFETIMES,
      });
      expect(again).toMatchObject({ tokenId: live.pair.tokenId });
    });

    it("a made-up code or refresh token finds nothing and writes nothing", async () => {
      const { client } = await grant();
      await fc.assert(
        fc.asyncProperty(fc.string({ minLength: 1, maxLength: 80 }), async (secret) => {
          const before = await kernel.admin.tableSnapshot();
          const code = await kernel.oauth.redeemCode({ code: secret, check: () => null, label: "x", ...LIFETIMES });
          const refresh = await kernel.oauth.refresh({
            refreshToken: secret,
            clientId: client.clientId,
            resource: null,
            ...LIFETIMES,
          });
          expect(code).toMatchObject({ error: "invalid_grant" });
          expect(refresh).toMatchObject({ error: "invalid_grant" });
          expect(await kernel.admin.tableSnapshot()).toEqual(before);
        }),
        { numRuns: 15 },
      );
    });
  });
}

oauthSuite("OAuth records on SQLite", () => openKernel(":memory:"));
const server = postgresAvailability();
if (server.available) oauthSuite("OAuth records on PostgreSQL", openTestPostgresKernel);
