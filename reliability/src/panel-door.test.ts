import { LIMITS } from "@mnote/contract";
import { RateLimiter, type RunningBridge } from "@mnote/hermes-bridge";
import { PanelHermes } from "@mnote/hermes-runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The panel's `/api/trpc` handler, exactly what apps/web/src/app/api/trpc/[trpc]/route.ts serves.
import { handlePanelApi, type PanelApiOptions } from "../../apps/web/src/server/panel-api";
import { PANEL_MAX_BATCH_CALLS } from "../../apps/web/src/trpc/limits";
import { businessSnapshot, createWorld, expectContractFailure, postTool, startTestBridge, type World } from "./support";

/**
 * Issue 11, items 2 and 5 (the panel half): the panel's door serves person tokens only, for
 * every procedure; a person token at the bridge is refused; the panel refuses cross-site
 * changes, bodies over the bridge's limit, oversized batches and callers over their rate.
 */
let world: World;
let bridge: RunningBridge;
let agentToken: string;
const PANEL = "http://127.0.0.1:4200";

beforeAll(async () => {
  world = await createWorld();
  bridge = await startTestBridge(world.kernel);
  // Agent writes wait for a person here: the panel must not become a way around that.
  await world.kernel.admin.setWorkspacePolicy(world.ids.ws, { approvalRequired: true }, { by: "test-setup" });
  agentToken = world.tokens.owner;
});
afterAll(async () => {
  await bridge?.close();
  await world?.close();
});

const panelOptions = (overrides: Partial<PanelApiOptions> = {}): PanelApiOptions => ({
  kernel: async () => world.kernel,
  limiter: null,
  ...overrides,
});

/** A tRPC mutation as the panel's client sends it (one call, not batched), with a session cookie. */
function panelPost(
  path: string,
  input: unknown,
  init: {
    cookie?: string | null;
    origin?: string | null;
    body?: string | ReadableStream<Uint8Array>;
    headers?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    host: "127.0.0.1:4200",
    ...init.headers,
  };
  if (init.cookie) headers.cookie = `mnote_session=${encodeURIComponent(init.cookie)}`;
  if (init.origin !== null) headers.origin = init.origin ?? PANEL;
  return new Request(`${PANEL}/api/trpc/${path}`, {
    method: "POST",
    headers,
    body: init.body ?? JSON.stringify(input),
    // A streamed body needs this in Node's fetch.
    ...(init.body instanceof ReadableStream ? { duplex: "half" } : {}),
  });
}

/** A tRPC query as the panel's client sends it (input in the URL). */
function panelGet(path: string, input: unknown, cookie: string) {
  return new Request(`${PANEL}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { cookie: `mnote_session=${encodeURIComponent(cookie)}`, host: "127.0.0.1:4200" },
  });
}

async function json(response: Response) {
  return (await response.json()) as {
    result?: { data: unknown };
    error?: { message: string; code: unknown; data?: { code: string } };
  }[] & {
    result?: { data: unknown };
    error?: { message: string; code: unknown; data?: { code: string } };
  };
}

describe("the panel's door: person tokens only", () => {
  it("agent cookie: every mnote.* tool answers the door's refusal, the panel's procedures 403; the audit has no agent success", async () => {
    const before = await businessSnapshot(world.kernel);
    const tools = [
      "mnote.page.get",
      "mnote.page.update_title",
      "mnote.page.save",
      "mnote.page.update_options",
      "mnote.artifact.create_summary",
      "mnote.artifact.create_ai_note",
    ] as const;
    for (const tool of tools) {
      const request =
        tool === "mnote.page.get"
          ? panelGet(tool, world.envelope(tool), agentToken)
          : panelPost(tool, world.envelope(tool, { dryRun: false }), { cookie: agentToken });
      const response = await handlePanelApi(request, panelOptions());
      const body = await json(response);
      const envelope = expectContractFailure(body.result?.data);
      expect(envelope.error).toMatchObject({
        code: "mnote_tool_permission_denied",
        message: expect.stringMatching(/panel is for people/),
      });
    }
    // The panel's own procedures (the revert among them: it takes ids, the server builds the call) answer 403.
    for (const path of [
      "panel.page.revert",
      "panel.proposals.approve",
      "panel.proposals.applyPart",
      "panel.workspace.setApproval",
    ]) {
      const answer = await handlePanelApi(
        panelPost(
          path,
          {
            workspaceId: world.ids.ws,
            documentId: world.ids.page,
            commandId: "cmd_any",
            proposalId: 1,
            keep: [0],
            approvalRequired: false,
          },
          { cookie: agentToken },
        ),
        panelOptions(),
      );
      expect(answer.status).toBe(403);
    }
    expect(await businessSnapshot(world.kernel)).toEqual(before);
    const audit = await world.kernel.listAudit({ workspaceId: world.ids.ws, limit: 200 });
    expect(
      audit.filter(
        (r) => r.identity.holder === "agent" && r.outcome === "ok" && r.identity.toolName.startsWith("panel."),
      ),
    ).toEqual([]);
  });

  it("a person's cookie still works at the panel (mnote.page.get and the panel's own reads)", async () => {
    const cookie = world.personTokens.owner;
    const read = await handlePanelApi(
      panelGet("mnote.page.get", world.envelope("mnote.page.get"), cookie),
      panelOptions(),
    );
    expect(((await json(read)).result?.data as { ok: boolean }).ok).toBe(true);
    const url = `${PANEL}/api/trpc/panel.session.me`;
    const me = await handlePanelApi(
      new Request(url, { headers: { cookie: `mnote_session=${cookie}`, host: "127.0.0.1:4200" } }),
      panelOptions(),
    );
    expect(me.status).toBe(200);
  });
});

describe("the bridge's door: agent tokens only", () => {
  it("a person token on the bridge is refused with a clear message, nothing written", async () => {
    const before = await businessSnapshot(world.kernel);
    for (const tool of ["mnote.page.update_title", "mnote.page.get"] as const) {
      const answer = await postTool(bridge, tool, world.envelope(tool, { dryRun: false }), {
        authorization: `Bearer ${world.personTokens.owner}`,
      });
      const envelope = expectContractFailure(answer.json, 403);
      expect(envelope.error).toMatchObject({
        code: "mnote_tool_permission_denied",
        message: "person tokens are for the panel; give agents an agent token: mnote admin token create --holder agent",
      });
    }
    expect(await businessSnapshot(world.kernel)).toEqual(before);
  });

  it("an agent token on the bridge is still held for approval", async () => {
    const answer = await postTool(
      bridge,
      "mnote.page.update_title",
      world.envelope("mnote.page.update_title", { dryRun: false }),
      {
        authorization: `Bearer ${agentToken}`,
      },
    );
    expect(expectContractFailure(answer.json).error!.code).toBe("mnote_tool_approval_required");
  });
});

describe("the OAuth endpoints have one entrance each (issue 31)", () => {
  it("/api/trpc serves no oauth.* procedure: a 20 KB registration or a token request there is not found, nothing stored", async () => {
    const before = await businessSnapshot(world.kernel);
    const clientsBefore = (await world.kernel.admin.tableSnapshot()).oauth_clients!.length;
    // Both spellings of the redirect URIs (the RFC's, and the one the router's procedure took over /api/trpc before).
    const redirect = ["http://127.0.0.1:5/callback"];
    const document = { redirect_uris: redirect, redirectUris: redirect, padding: "x".repeat(20_000) };
    for (const [path, input] of [
      ["oauth.register", document],
      ["oauth.token", { grantType: "refresh_token", clientId: "x", refreshToken: "y" }],
      ["oauth.consent.open", { clientId: "x" }],
      ["panel.oauth.open", { clientId: "x" }],
    ] as const) {
      const res = await handlePanelApi(panelPost(path, input, { cookie: world.personTokens.owner }), panelOptions());
      expect(res.status, path).toBe(404);
    }
    expect((await world.kernel.admin.tableSnapshot()).oauth_clients!.length).toBe(clientsBefore);
    expect(await businessSnapshot(world.kernel)).toEqual(before);
  });
});

describe("the panel refuses cross-site changes", () => {
  const cookie = () => world.personTokens.owner;
  const setApproval = (origin: string | null, allowedOrigins: string[] = []) =>
    handlePanelApi(
      panelPost(
        "panel.workspace.setApproval",
        { workspaceId: world.ids.ws, approvalRequired: true },
        { cookie: cookie(), origin },
      ),
      panelOptions({ allowedOrigins }),
    );

  it("a foreign Origin: 403 before anything runs; the panel's own or an allowed origin passes", async () => {
    for (const origin of ["http://evil.example", "null", "http://127.0.0.1:4201"]) {
      const refused = await setApproval(origin);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { code: "mnote_tool_permission_denied" } });
    }
    expect((await setApproval(PANEL)).status).toBe(200);
    expect((await setApproval("https://panel.example.com", ["https://panel.example.com"])).status).toBe(200);
    // No Origin and no Sec-Fetch-Site: not a browser, so no victim's cookie to ride on.
    expect((await setApproval(null)).status).toBe(200);
  });

  it("a browser that hides Origin but says cross-site is refused", async () => {
    const request = panelPost(
      "panel.workspace.setApproval",
      { workspaceId: world.ids.ws, approvalRequired: true },
      {
        cookie: cookie(),
        origin: null,
        headers: { "sec-fetch-site": "cross-site" },
      },
    );
    expect((await handlePanelApi(request, panelOptions())).status).toBe(403);
  });
});

describe("the panel cannot be exhausted", () => {
  it("a declared body over the bridge's limit is refused unread (413)", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const request = panelPost("mnote.page.get", null, {
      body,
      headers: { "content-length": String(200 * 1024 * 1024) },
    });
    const response = await handlePanelApi(request, panelOptions());
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "mnote_tool_payload_too_large" } });
    expect(pulled).toBeLessThanOrEqual(1); // the stream's own first pull, nothing read
  });

  it("a streamed body that grows past the limit is cut off at that chunk (413), not buffered", async () => {
    const chunk = 256 * 1024;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 200 * 1024 * 1024) return controller.close();
        sent += chunk;
        controller.enqueue(new Uint8Array(chunk));
      },
    });
    const response = await handlePanelApi(panelPost("mnote.page.get", null, { body }), panelOptions());
    expect(response.status).toBe(413);
    // Read up to one chunk past the limit, plus what the stream queued ahead: nowhere near 200 MiB.
    expect(sent).toBeLessThan(LIMITS.requestBodyBytes + 4 * chunk);
  });

  it(`a batch of more than ${PANEL_MAX_BATCH_CALLS} calls is refused whole; ${PANEL_MAX_BATCH_CALLS} pass`, async () => {
    const cookie = `mnote_session=${world.personTokens.owner}`;
    const batch = (n: number) => {
      const paths = Array.from({ length: n }, () => "panel.session.me").join(",");
      return new Request(`${PANEL}/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`, {
        headers: { cookie, host: "127.0.0.1:4200" },
      });
    };
    expect((await handlePanelApi(batch(PANEL_MAX_BATCH_CALLS), panelOptions())).status).toBe(200);
    const refused = await handlePanelApi(batch(600), panelOptions());
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("Batch call exceeds maximum size");
  });

  it("a per-token rate limit: the token over its budget gets 429, another token does not; made-up cookies share one budget", async () => {
    // The bridge's limiter, the clock stopped: exactly `burst` calls pass.
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 3 }, () => 0);
    const get = (cookie: string | null) =>
      handlePanelApi(
        new Request(`${PANEL}/api/trpc/panel.session.me`, {
          headers: { host: "127.0.0.1:4200", ...(cookie ? { cookie: `mnote_session=${cookie}` } : {}) },
        }),
        panelOptions({ limiter }),
      );
    for (let i = 0; i < 3; i++) expect((await get(world.personTokens.owner)).status).toBe(200);
    const limited = await get(world.personTokens.owner);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await limited.json()).toMatchObject({ error: { code: "mnote_tool_rate_limited" } });
    expect((await get(world.personTokens.editor)).status).toBe(200);
    // A batch counts every call it carries.
    const batch = await handlePanelApi(
      new Request(`${PANEL}/api/trpc/panel.session.me,panel.session.me,panel.session.me?batch=1&input=%7B%7D`, {
        headers: { host: "127.0.0.1:4200", cookie: `mnote_session=${world.personTokens.viewer}` },
      }),
      panelOptions({ limiter }),
    );
    expect(batch.status).toBe(200);
    expect((await get(world.personTokens.viewer)).status).toBe(429);
    // Rotating unknown cookies does not buy fresh budgets: a token is keyed by itself only if it is real.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(`mnt_made_up_${i}`)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
  });
});

describe("a flood of bad session cookies leaves valid cookies working (issue 20)", () => {
  it("made-up cookies are refused (429, about failed authentications), a person's live cookie is never", async () => {
    // The bridge's limiter, the clock stopped: the failing attempts' shared budget runs out for good.
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 5 }, () => 0);
    const get = (cookie: string | null) =>
      handlePanelApi(
        new Request(`${PANEL}/api/trpc/panel.session.me`, {
          headers: { host: "127.0.0.1:4200", ...(cookie ? { cookie: `mnote_session=${cookie}` } : {}) },
        }),
        panelOptions({ limiter }),
      );
    const statuses: number[] = [];
    const messages = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const answer = await get(`mnt_guess_${i}`);
      statuses.push(answer.status);
      if (answer.status === 429) messages.add(((await answer.json()) as { error: { message: string } }).error.message);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    expect([...messages]).toEqual(["too many failed authentications; sign in again or retry later"]);
    // A live cookie is answered, every time, while the guesses keep being refused.
    for (let i = 0; i < 3; i++) {
      const me = await get(world.personTokens.editor);
      expect(me.status).toBe(200);
      expect((await get(`mnt_guess_more_${i}`)).status).toBe(429);
    }
    // Calls without any cookie are not starved by the guesser either (their own budget).
    expect((await get(null)).status).not.toBe(429);
  });
});

/** Reads server-sent events from a panel response: each `next` answers the next event that carries data. */
function sseEvents(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    async next(): Promise<{ event: string | null; id: string | null; data: string }> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const field = (name: string) =>
            block
              .split("\n")
              .find((line) => line.startsWith(`${name}: `))
              ?.slice(name.length + 2) ?? null;
          const data = field("data");
          if (data !== null && data !== "" && field("event") === null) return { event: null, id: field("id"), data };
          continue;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("the stream ended");
        buffer += value;
      }
    },
    close: () => reader.cancel(),
  };
}

describe("live updates over server-sent events (panel.page.changes)", () => {
  const changesUrl = () =>
    `${PANEL}/api/trpc/panel.page.changes?input=${encodeURIComponent(JSON.stringify({ workspaceId: world.ids.ws, documentId: world.ids.page }))}`;
  const openStream = (cookie: string, options: Partial<PanelApiOptions>) =>
    handlePanelApi(
      new Request(changesUrl(), {
        headers: { host: "127.0.0.1:4200", cookie: `mnote_session=${cookie}`, accept: "text/event-stream" },
      }),
      panelOptions(options),
    );

  it("a stream is one call of the rate limit however many events it carries", async () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 3 }, () => 0);
    const cookie = world.personTokens.editor;
    const response = await openStream(cookie, { limiter });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = sseEvents(response);
    try {
      const first = await events.next();
      let last = first.id;
      for (let i = 0; i < 5; i++) {
        // Each agent read is an audit record on the page: one pushed event each.
        expect((await world.call("mnote.page.get", world.envelope("mnote.page.get"))).ok).toBe(true);
        const event = await events.next();
        expect(event.id).not.toBe(last);
        last = event.id;
      }
    } finally {
      await events.close();
    }
    // The stream took one call of three: two more pass, the next is over the budget.
    const get = () =>
      handlePanelApi(
        new Request(`${PANEL}/api/trpc/panel.session.me`, {
          headers: { host: "127.0.0.1:4200", cookie: `mnote_session=${cookie}` },
        }),
        panelOptions({ limiter }),
      );
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
  });

  it("one session may hold only so many streams open; a closed one frees its place", async () => {
    const cookie = world.personTokens.viewer;
    const feed = world.kernel.changes as unknown as { subscribers: number };
    const idle = feed.subscribers;
    const a = await openStream(cookie, { maxStreamsPerToken: 2 });
    const b = await openStream(cookie, { maxStreamsPerToken: 2 });
    expect([a.status, b.status]).toEqual([200, 200]);
    const refused = await openStream(cookie, { maxStreamsPerToken: 2 });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: "mnote_tool_rate_limited" } });
    // Another person is not affected.
    const other = await openStream(world.personTokens.owner, { maxStreamsPerToken: 2 });
    expect(other.status).toBe(200);
    await a.body!.cancel();
    const again = await openStream(cookie, { maxStreamsPerToken: 2 });
    expect(again.status).toBe(200);
    await Promise.all([b.body!.cancel(), other.body!.cancel(), again.body!.cancel()]);
    // Every subscription let go of the kernel's feed when its body was cancelled, not at some later change.
    await expect.poll(() => feed.subscribers, { timeout: 2_000 }).toBe(idle);
  });
});

describe("Ask Hermes at the panel's door (panel.hermes.*, decision 0043): the same limits and identity rules", () => {
  // Nothing here may reach Hermes: every refusal is the door's or the router's, before any call to it.
  const hermes = new PanelHermes({
    url: "http://127.0.0.1:9",
    apiKey: "door-key-0123456789",
    allowedToolsets: ["mnote"],
  });
  const askRequest = (init: Parameters<typeof panelPost>[2]) =>
    panelPost(
      "panel.hermes.ask",
      { workspaceId: world.ids.ws, documentId: world.ids.page, input: "what is here?" },
      init,
    );

  it("a foreign Origin is refused before anything runs; a body over the cap is refused unread", async () => {
    const before = await businessSnapshot(world.kernel);
    const foreign = await handlePanelApi(
      askRequest({ cookie: world.personTokens.owner, origin: "https://evil.example" }),
      panelOptions({ hermes }),
    );
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: "mnote_tool_permission_denied" } });
    const tooLarge = await handlePanelApi(
      askRequest({
        cookie: world.personTokens.owner,
        body: new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new Uint8Array(64 * 1024)) }),
        headers: { "content-length": String(LIMITS.requestBodyBytes + 1) },
      }),
      panelOptions({ hermes }),
    );
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { code: "mnote_tool_payload_too_large" } });
    expect(await businessSnapshot(world.kernel)).toEqual(before);
  });

  it("an agent's cookie is refused; each call takes one from the person's rate budget", async () => {
    const agent = await handlePanelApi(askRequest({ cookie: agentToken }), panelOptions({ hermes }));
    expect(agent.status).toBe(403);
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 2 }, () => 0);
    const stop = () =>
      handlePanelApi(
        panelPost("panel.hermes.stop", { runId: "run_0000000000000000" }, { cookie: world.personTokens.editor }),
        panelOptions({ hermes, limiter }),
      );
    expect((await stop()).status).toBe(404);
    expect((await stop()).status).toBe(404);
    const limited = await stop();
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { code: "mnote_tool_rate_limited" } });
  });

  it("a run is its asker's: another person's run streams the same refusal as an unknown one", async () => {
    const owner = world.personTokens.owner;
    const post = (path: string, input: unknown) =>
      handlePanelApi(panelPost(path, input, { cookie: owner }), panelOptions({ hermes }));
    const started = (
      await json(await post("panel.ask.start", { workspaceId: world.ids.ws, documentId: world.ids.page }))
    ).result!.data as { sessionId: string };
    const runId = "run_door_0123456789";
    expect((await post("panel.ask.record", { runId, sessionId: started.sessionId })).status).toBe(200);
    const firstEvent = async (id: string) => {
      const url = `${PANEL}/api/trpc/panel.hermes.events?input=${encodeURIComponent(JSON.stringify({ runId: id }))}`;
      const response = await handlePanelApi(
        new Request(url, {
          headers: {
            host: "127.0.0.1:4200",
            cookie: `mnote_session=${world.personTokens.editor}`,
            accept: "text/event-stream",
          },
        }),
        panelOptions({ hermes }),
      );
      const text = await response.text();
      return { status: response.status, error: /event: serialized-error\ndata: (.*)\n/.exec(text)?.[1] ?? text };
    };
    const theirs = await firstEvent(runId);
    expect(theirs).toEqual(await firstEvent("run_0000000000000000"));
    expect(theirs.error).toContain("mnote_tool_not_found");
  });
});
