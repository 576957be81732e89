import { LIMITS } from "@mnote/contract";
import { endsRun, type NumberedRunLine, PanelHermes, STEER_UNSUPPORTED } from "@mnote/hermes-runs";
import { isTrackedEnvelope } from "@trpc/server";
import { ASK_HERMES_NOT_SET_UP, ASK_HERMES_UNAVAILABLE } from "../../panel/hermes";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createToolsContext } from "../../context";
import { createCaller } from "../../root";
import { createWorld, type World } from "../../test-support";
import { HermesApproveInput } from "./hermes-approve";
import { HermesAskInput } from "./hermes-ask";

/**
 * Ask Hermes through the router (`panel.hermes.*`, decision 0043) against an HTTP server speaking Hermes's API
 * (0.19: `/health`, `/v1/toolsets`, `/v1/runs` and its events as SSE; no capabilities, no steer) and the real kernel
 * on SQLite: the run's lines go from Hermes through the pump into the database and out to the asker only.
 */
const KEY = "panel-key-0123456789";
const sse = (res: ServerResponse, payload: object) => res.write(`data: ${JSON.stringify(payload)}\n\n`);

let server: Server;
let url: string;
/** What Hermes's `GET /v1/toolsets` offers a run (a test sets `terminal` to make Hermes not ready). */
let offered: string[];
/** The runs Hermes was asked to start: what the panel sent it. */
let started: { input: unknown; instructions: unknown; sessionId: unknown }[];
/** Answer the next run start 503 (Hermes busy): the run is never recorded, as when the answer is lost. */
let failNextStart: boolean;
let approvals: { runId: string; choice: unknown }[];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const send = (status: number, answer: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
      if (req.url === "/health") return send(200, { status: "ok", platform: "hermes-agent", version: "0.19.0" });
      if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { error: { message: "Invalid API key" } });
      if (req.url === "/v1/toolsets") {
        const toolset = (name: string) => ({
          name,
          label: name,
          description: name,
          enabled: true,
          configured: true,
          tools: [name],
        });
        return send(200, { object: "list", platform: "api_server", data: offered.map(toolset) });
      }
      if (req.method === "POST" && req.url === "/v1/runs") {
        const run = JSON.parse(body) as { input: unknown; instructions: unknown; session_id: unknown };
        started.push({ input: run.input, instructions: run.instructions, sessionId: run.session_id });
        if (failNextStart) {
          failNextStart = false;
          return send(503, { error: { message: "busy" } });
        }
        return send(202, {
          run_id: `run_${started.length}_${Math.random().toString(16).slice(2, 10)}`,
          status: "started",
        });
      }
      const match = /^\/v1\/runs\/([\w-]+)\/(events|approval|stop|steer)$/.exec(req.url ?? "");
      if (!match) return send(404, { error: { message: "Not found" } });
      const [, runId, action] = match;
      if (action === "approval") {
        approvals.push({ runId: runId!, choice: (JSON.parse(body) as { choice: unknown }).choice });
        return send(200, {});
      }
      if (action === "stop") return send(200, { status: "stopping" });
      // 0.19 has no steer: its router answers an unknown path 404 with no code.
      if (action === "steer") return send(404, { error: { message: "Not found" } });
      res.writeHead(200, { "content-type": "text/event-stream" });
      sse(res, { event: "tool.started", tool: "mnote_page_get", preview: "doc" });
      sse(res, { event: "tool.completed", tool: "mnote_page_get", duration: 0.1, error: false });
      sse(res, { event: "message.delta", delta: "The plan " });
      sse(res, { event: "message.delta", delta: "is short." });
      sse(res, { event: "run.completed", output: "The plan is short." });
      res.end(": stream closed\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  offered = ["mnote"];
  started = [];
  approvals = [];
  failNextStart = false;
});

/** The panel's router as `token`'s person, with the panel's Hermes (a fresh readiness cache per caller). */
const panelAs = (world: World, token: string | null, hermes: PanelHermes | null = hermesAt(url)) =>
  createCaller(
    createToolsContext({
      kernel: world.kernel,
      authorization: token ? `Bearer ${token}` : null,
      door: "panel",
      hermes,
    }),
  ).panel.hermes;

const hermesAt = (at: string) => new PanelHermes({ url: at, apiKey: KEY, allowedToolsets: ["mnote"] });

/** Every line of the run's stream until it ends (the procedure ends the stream once the run is over). */
async function readAll(events: AsyncIterable<unknown>): Promise<NumberedRunLine[]> {
  const lines: NumberedRunLine[] = [];
  for await (const event of events) lines.push((isTrackedEnvelope(event) ? event[1] : event) as NumberedRunLine);
  return lines;
}

/** The refusal a procedure call ended with, as the caller sees it. */
const refusal = (call: Promise<unknown>) =>
  call.then(
    () => null,
    (error: { code: string; message: string }) => ({ code: error.code, message: error.message }),
  );

describe("panel.hermes: Ask Hermes through the router", () => {
  it("asks as the person, records the run, and streams its lines from the database to its asker until it ends", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const run = await panelAs(w, w.tokens.editor).ask({ ...ref, input: "  what is here?  " });
    expect(run.sessionId).toMatch(new RegExp(`^mnote_${w.ids.page}_`));
    expect(run.revision).toBe(1);
    // Hermes got the question trimmed and the router's instructions; the database got no text of it.
    expect(started).toEqual([
      {
        input: "what is here?",
        instructions: expect.stringContaining(`documentId ${w.ids.page}`),
        sessionId: run.sessionId,
      },
    ]);
    expect((await w.kernel.ask.getRun(run.runId))?.userId).toBe((await w.kernel.ask.getSession(run.sessionId))?.userId);

    const lines = await readAll(await panelAs(w, w.tokens.editor).events({ runId: run.runId }));
    // The answer's text comes in one delta line or several, as the pump's flushes fell: the same text either way.
    const others = lines.filter((line) => line.type !== "delta");
    expect(others.map((line) => line.type)).toEqual(["tool.started", "tool.completed", "completed", "closed"]);
    expect(lines.map((line) => (line.type === "delta" ? line.text : "")).join("")).toBe("The plan is short.");
    expect(lines.filter(endsRun).map((line) => line.type)).toEqual(["completed", "closed"]);
    expect(lines.map((line) => line.seq)).toEqual([...lines.map((line) => line.seq)].sort((a, b) => a - b));
    // A reader resuming after a line (Last-Event-ID) gets only what came after it.
    const resumed = await readAll(
      await panelAs(w, w.tokens.editor).events({ runId: run.runId, lastEventId: String(others[1]!.seq) }),
    );
    expect(resumed.filter((line) => line.type !== "delta").map((line) => line.type)).toEqual(["completed", "closed"]);
    expect(resumed.every((line) => line.seq > others[1]!.seq)).toBe(true);
    // A reload of an ended run answers only how it ended, never its text again.
    const reload = await readAll(await panelAs(w, w.tokens.editor).events({ runId: run.runId, reload: true }));
    expect(reload.map((line) => line.type)).toEqual(["status"]);

    // The same start key again is the same run (a double click), answered from the run it started.
    const keyed = { ...ref, input: "again", startKey: "key-0123456789" };
    const first = await panelAs(w, w.tokens.editor).ask(keyed);
    await readAll(await panelAs(w, w.tokens.editor).events({ runId: first.runId }));
    expect(await panelAs(w, w.tokens.editor).ask(keyed)).toEqual({ ...first, revision: null });
    expect(started).toHaveLength(2);
  });

  it("keeps a run its asker's: another person's run and an unknown one are refused alike, at every step", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const run = await panelAs(w, w.tokens.owner).ask({ ...ref, input: "mine" });
    const ben = panelAs(w, w.tokens.editor);
    const steps = [
      (runId: string) => ben.events({ runId }).then(readAll),
      (runId: string) => ben.approve({ runId, choice: "deny" }),
      (runId: string) => ben.stop({ runId }),
      (runId: string) => ben.steer({ runId, input: "x" }),
    ];
    for (const step of steps) {
      const theirs = await refusal(step(run.runId));
      expect(theirs).toEqual(await refusal(step("run_0000000000000000")));
      expect(theirs?.code).toBe("NOT_FOUND");
    }
    // And their conversation is not Ben's to continue.
    const conversation = await refusal(ben.ask({ ...ref, input: "x", sessionId: run.sessionId }));
    expect(conversation?.code).toBe("NOT_FOUND");
    expect(started).toHaveLength(1);
    expect(approvals).toEqual([]);
  });

  it("a first question retried before its run was recorded starts the same conversation (one body for Hermes 0.21's key)", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const ask = { ...ref, input: "what is here?", startKey: "first_question_1" };
    failNextStart = true;
    expect((await refusal(panelAs(w, w.tokens.editor).ask(ask)))?.code).toBe("SERVICE_UNAVAILABLE");
    const retried = await panelAs(w, w.tokens.editor).ask(ask);
    expect(started).toHaveLength(2);
    expect(started[1]).toEqual(started[0]);
    expect(retried.sessionId).toBe(started[0]!.sessionId);
    // Another question (another key) is another conversation; another person's same key never names this one.
    const other = await panelAs(w, w.tokens.editor).ask({ ...ask, startKey: "first_question_2" });
    expect(other.sessionId).not.toBe(retried.sessionId);
    const owners = await panelAs(w, w.tokens.owner).ask(ask);
    expect(owners.sessionId).not.toBe(retried.sessionId);
  });

  it("refuses a viewer and a caller without a session; with no Hermes configured every step says it is not set up (in a person's words)", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    expect((await refusal(panelAs(w, w.tokens.viewer).ask({ ...ref, input: "x" })))?.code).toBe("FORBIDDEN");
    expect((await refusal(panelAs(w, null).ask({ ...ref, input: "x" })))?.code).toBe("UNAUTHORIZED");
    const none = panelAs(w, w.tokens.owner, null);
    expect(await none.connection()).toEqual({ connected: false, help: ASK_HERMES_NOT_SET_UP });
    for (const call of [none.ask({ ...ref, input: "x" }), none.stop({ runId: "run_1" })])
      expect(await refusal(call)).toEqual({ code: "SERVICE_UNAVAILABLE", message: ASK_HERMES_NOT_SET_UP });
    expect(started).toEqual([]);
  });

  it("says whether Hermes may be asked to anyone, and refuses a run while Hermes would offer more than mnote", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    expect(await panelAs(w, null).connection()).toEqual({ connected: true, help: null });
    offered = ["mnote", "terminal"];
    const notReady = await refusal(panelAs(w, w.tokens.owner).ask({ ...ref, input: "x" }));
    expect(notReady?.code).toBe("SERVICE_UNAVAILABLE");
    // The person reads what they can do; the operator's reason (the toolsets, the address) goes to the log only.
    expect(notReady?.message).toBe(ASK_HERMES_UNAVAILABLE);
    const gone = hermesAt("http://127.0.0.1:9");
    expect((await panelAs(w, null, gone).connection()).help).toBe(ASK_HERMES_UNAVAILABLE);
    expect(started).toEqual([]);
  });

  it("relays once/deny only, stops a run, and says what to do when this Hermes cannot steer", async () => {
    const w = await createWorld();
    const owner = panelAs(w, w.tokens.owner);
    const run = await owner.ask({ workspaceId: w.ids.ws, documentId: w.ids.page, input: "x" });
    expect(await owner.approve({ runId: run.runId, choice: "once" })).toEqual({ runId: run.runId, choice: "once" });
    for (const choice of ["session", "always"]) {
      const refused = await refusal(owner.approve({ runId: run.runId, choice: choice as "once" }));
      expect(refused?.code).toBe("UNPROCESSABLE_CONTENT");
    }
    expect(approvals).toEqual([{ runId: run.runId, choice: "once" }]);
    expect(await owner.stop({ runId: run.runId })).toEqual({ runId: run.runId, status: "stopping" });
    expect(await refusal(owner.steer({ runId: run.runId, input: "also the budget" }))).toEqual({
      code: "SERVICE_UNAVAILABLE",
      message: STEER_UNSUPPORTED,
    });
  });

  it("takes a question trimmed and within the contract's limit, and only the relayed approval choices", () => {
    const ref = { workspaceId: "ws", documentId: "doc" };
    expect(HermesAskInput.parse({ ...ref, input: "  what is here?  " }).input).toBe("what is here?");
    expect(HermesAskInput.safeParse({ ...ref, input: "   " }).success).toBe(false);
    expect(HermesAskInput.safeParse({ ...ref, input: "x".repeat(LIMITS.askQuestionChars + 1) }).success).toBe(false);
    expect(HermesAskInput.safeParse({ ...ref, input: "q", startKey: "short" }).success).toBe(false);
    expect(HermesApproveInput.safeParse({ runId: "run_1", choice: "once" }).success).toBe(true);
    expect(HermesApproveInput.safeParse({ runId: "run_1", choice: "always" }).success).toBe(false);
    expect(HermesApproveInput.safeParse({ runId: "run_1", choice: "session" }).success).toBe(false);
  });
});
