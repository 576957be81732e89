import { ManualClock, openSqliteDriver, SqlKernel } from "@mnote/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPersonSignIn, resolveToken, signedInPerson } from "./resolve-token";

describe("who a token is, where no tool runs (the panel's sign-in, the bridge's whoami)", () => {
  let kernel: SqlKernel;
  const tokens: Record<string, string> = {};
  let personId: string;

  beforeAll(async () => {
    const clock = new ManualClock();
    kernel = await SqlKernel.open(openSqliteDriver(":memory:"), { clock });
    const user = (await kernel.admin.createUser({ name: "Ada" })).id;
    const issue = async (holder: "person" | "agent", ttlSeconds?: number) =>
      kernel.admin.createToken({ userId: user, holder, scopes: ["page.read"], ttlSeconds });
    const person = await issue("person");
    personId = person.record.id;
    tokens.person = person.token;
    tokens.agent = (await issue("agent")).token;
    const revoked = await issue("person");
    await kernel.admin.revokeToken(revoked.record.id);
    tokens.revoked = revoked.token;
    const expired = await issue("person", 1);
    tokens.expired = expired.token;
    // The one-second token runs out.
    clock.advance(1_100);
  });
  afterAll(() => kernel.close());

  it("a live token, bare or as a Bearer value, is resolved; revoked, expired, unknown and empty are nobody", async () => {
    expect((await resolveToken(kernel, tokens.person))?.id).toBe(personId);
    expect((await resolveToken(kernel, `Bearer ${tokens.person}`))?.id).toBe(personId);
    expect(await resolveToken(kernel, tokens.agent)).toMatchObject({ holder: "agent" });
    for (const nobody of [tokens.revoked, tokens.expired, "mnt_unknown", "", "Bearer ", null, undefined]) {
      expect(await resolveToken(kernel, nobody), String(nobody)).toBeNull();
    }
  });

  it("a signed-in person is a live person token: an agent token is not one", async () => {
    expect((await signedInPerson(kernel, tokens.person))?.id).toBe(personId);
    expect(await signedInPerson(kernel, tokens.agent)).toBeNull();
    expect(await signedInPerson(kernel, tokens.revoked)).toBeNull();
    expect(await signedInPerson(kernel, tokens.expired)).toBeNull();
  });

  it("a sign-in that fails says the one true reason: malformed, unknown, revoked, expired or an agent's", async () => {
    expect(await checkPersonSignIn(kernel, tokens.person)).toMatchObject({ ok: true, token: { id: personId } });
    const problems = {
      "": "malformed",
      "not a token": "malformed",
      "Bearer ": "malformed",
      [tokens.person!.slice(4)]: "malformed",
      mnt_unknown: "unknown",
      [`${tokens.person}x`]: "unknown",
      [tokens.revoked!]: "revoked",
      [tokens.expired!]: "expired",
      [tokens.agent!]: "agent",
    };
    for (const [sent, problem] of Object.entries(problems))
      expect(await checkPersonSignIn(kernel, sent), sent).toEqual({ ok: false, problem });
    // The same facts as signedInPerson, which the panel's procedures ask: only a live person token signs in.
    for (const sent of Object.values(tokens))
      expect((await checkPersonSignIn(kernel, sent)).ok).toBe((await signedInPerson(kernel, sent)) !== null);
  });
});
