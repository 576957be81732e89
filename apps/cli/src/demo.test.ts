import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./test-support";

/**
 * Issue 11 item 4: `npm start` pointed at a real database seeded the demo into it and opened
 * passwordless sign-in. The demo now runs only on a database of its own.
 */
describe("mnote demo", () => {
  const cli = (dir: string, argv: string[]) => runCli(dir, argv, { databaseUrl: `file:${join(dir, "mnote.db")}` });
  const credentials = (dir: string) => ["--credentials", join(dir, "demo-tokens.json")];

  it("seeds an empty database, and runs again on the database it made", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mnote-demo-"));
    const first = await cli(dir, ["demo", ...credentials(dir)]);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ workspaceId: "ws_demo", users: { ada: { id: "user_ada" } } });
    const again = await cli(dir, ["demo", ...credentials(dir)]);
    expect(again.code).toBe(0);
    expect(again.json.credentials.ada).toEqual(first.json.credentials.ada);
  }, 60_000);

  it("gives the demo people emails, so inviting them by email works; a demo seeded without them gets them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mnote-demo-"));
    expect((await cli(dir, ["demo", ...credentials(dir)])).code).toBe(0);
    const emails = async () =>
      Object.fromEntries(
        ((await cli(dir, ["admin", "user", "list"])).json as Array<{ id: string; email: string | null }>).map(
          (user) => [user.id, user.email],
        ),
      );
    expect(await emails()).toEqual({
      user_ada: "ada@mnote-demo.example",
      user_ben: "ben@mnote-demo.example",
      user_cy: "cy@mnote-demo.example",
      user_dee: "dee@mnote-demo.example",
    });
    // As a demo database made before the emails: Ben has none; the next start gives it back.
    expect((await cli(dir, ["admin", "user", "set-email", "--id", "user_ben", "--clear"])).code).toBe(0);
    expect((await emails()).user_ben).toBeNull();
    expect((await cli(dir, ["demo", ...credentials(dir)])).code).toBe(0);
    expect((await emails()).user_ben).toBe("ben@mnote-demo.example");
  }, 60_000);

  it("refuses a database with users of its own: nothing seeded, a clear message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mnote-demo-"));
    const olga = (await cli(dir, ["admin", "user", "create", "--name", "Olga"])).json.id as string;
    const refused = await cli(dir, ["demo", ...credentials(dir)]);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({
      ok: false,
      error: expect.stringMatching(/users the demo did not create.*--force/),
    });
    // Nothing of the demo was written: its workspace does not exist.
    const probe = await cli(dir, [
      "admin",
      "page",
      "create",
      "--workspace",
      "ws_demo",
      "--title",
      "Probe",
      "--created-by",
      olga,
    ]);
    expect(probe.code).not.toBe(0);
    // The operator may still ask for it explicitly.
    const forced = await cli(dir, ["demo", ...credentials(dir), "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.json).toMatchObject({ workspaceId: "ws_demo" });
  }, 60_000);
});
