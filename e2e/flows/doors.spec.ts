import { request as httpRequest } from "node:http";
import { mnote } from "../../scripts/stack.mjs";
import { e2eState, expect, test } from "./support";

/**
 * Issue 11 items 2, 4, 5 against the running panel (real HTTP, the production build):
 * an agent token is no session, the demo picker signs in demo users only and only from
 * the panel's own pages, and /api/trpc refuses oversized bodies and batches.
 */
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = "application/x-www-form-urlencoded";

test("the demo picker: a foreign Origin is refused, a user outside the demo is refused, a demo user signs in", async ({
  request,
}) => {
  const { webUrl, databaseUrl } = e2eState();
  const foreign = await request.post(`${webUrl}/api/session/dev`, {
    data: form({ userId: "user_ada" }),
    headers: { "content-type": FORM, origin: "http://evil.example" },
    maxRedirects: 0,
  });
  expect(foreign.status()).toBe(403);
  expect(foreign.headers()["set-cookie"]).toBeUndefined();

  // Someone the demo did not create, in the same database.
  const olga = (await mnote(["admin", "user", "create", "--name", "Olga"], { MNOTE_DATABASE_URL: databaseUrl })) as {
    id: string;
  };
  const outsider = await request.post(`${webUrl}/api/session/dev`, {
    data: form({ userId: olga.id }),
    headers: { "content-type": FORM, origin: webUrl },
    maxRedirects: 0,
  });
  expect(await outsider.text()).toContain("/signin?error=user");
  expect(outsider.headers()["set-cookie"]).toBeUndefined();

  const ada = await request.post(`${webUrl}/api/session/dev`, {
    data: form({ userId: "user_ada" }),
    headers: { "content-type": FORM, origin: webUrl },
    maxRedirects: 0,
  });
  const cookie = ada.headers()["set-cookie"] ?? "";
  expect(cookie).toMatch(/mnote_session=/);
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=lax/i);
});

test("sign-in with a token: a person token signs in; an agent token, a revoked, made-up or malformed one does not", async ({
  request,
}) => {
  const { webUrl, databaseUrl, credentials } = e2eState();
  const signIn = (token: string) =>
    request.post(`${webUrl}/api/session`, {
      data: form({ token }),
      headers: { "content-type": FORM, origin: webUrl },
      maxRedirects: 0,
    });
  const person = await signIn(credentials.ben.person);
  expect(person.headers()["set-cookie"] ?? "").toMatch(/mnote_session=/);

  const revoked = (await mnote(
    ["admin", "token", "create", "--user", "user_ben", "--holder", "person", "--scopes", "page.read"],
    {
      MNOTE_DATABASE_URL: databaseUrl,
    },
  )) as { token: string; id: string };
  await mnote(["admin", "token", "revoke", "--id", revoked.id], { MNOTE_DATABASE_URL: databaseUrl });
  // Each refused for its own true reason (the sign-in page words each: sign-in.spec.ts), none with a session.
  for (const [refused, reason] of [
    [credentials.ben.agent, "token_agent"],
    [revoked.token, "token_revoked"],
    ["mnt_made_up", "token_unknown"],
    ["not a token at all", "token_malformed"],
  ]) {
    const answer = await signIn(refused!);
    expect(await answer.text()).toContain(`/signin?error=${reason}"`);
    expect(answer.headers()["set-cookie"]).toBeUndefined();
  }
});

test("an agent token as the session cookie: mnote.* and panel.* are refused at the panel", async ({ request }) => {
  const { webUrl, workspaceId, credentials } = e2eState();
  const agentCookie = { cookie: `mnote_session=${encodeURIComponent(credentials.ada.agent)}` };
  const envelope = {
    toolName: "mnote.page.get",
    workspaceId,
    documentId: "doc_plan",
    actorId: "user_ada",
    sessionId: "s",
    runId: "r",
    toolCallId: "c",
    traceId: "t",
    capabilityScope: ["page.read"],
    args: {},
  };
  const read = await request.get(
    `${webUrl}/api/trpc/mnote.page.get?input=${encodeURIComponent(JSON.stringify(envelope))}`,
    { headers: agentCookie },
  );
  const answer = (await read.json()) as { result: { data: { ok: boolean; error: { code: string; message: string } } } };
  expect(answer.result.data).toMatchObject({
    ok: false,
    error: { code: "mnote_tool_permission_denied", message: expect.stringMatching(/panel is for people/) },
  });

  const me = await request.get(`${webUrl}/api/trpc/panel.session.me`, { headers: agentCookie });
  expect(me.status()).toBe(403);
});

test("/api/trpc: a body over the bridge's limit is 413, a batch over the cap is 400", async ({ request }) => {
  const { webUrl } = e2eState();
  // The panel refuses a declared body over the limit before reading it, and closes the connection: a client
  // that insists on writing 5 MiB first may see EPIPE instead of the answer. So this one declares the length,
  // sends a first chunk, and reads what the panel answers.
  const big = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${webUrl}/api/trpc/mnote.page.save`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: webUrl, "content-length": String(5 * 1024 * 1024) },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    req.write("x".repeat(64 * 1024));
  });
  expect(big.status).toBe(413);
  expect(JSON.parse(big.body)).toMatchObject({ error: { code: "mnote_tool_payload_too_large" } });

  const paths = Array.from({ length: 11 }, () => "panel.session.me").join(",");
  const batch = await request.get(`${webUrl}/api/trpc/${paths}?batch=1&input=%7B%7D`);
  expect(batch.status()).toBe(400);
});
