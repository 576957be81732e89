import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AskEvent, HermesClient, HermesRefused, INTERRUPTED_MESSAGE } from "./client";
import { checkReadiness, hermesFailureAnswer } from "./readiness";
import { runEnd } from "./run-end";
import { startAskRun } from "./start-run";

/**
 * Hermes 0.21's run API (issue 35), against the project's Hermes stand-in (e2e/hermes-standin/server.py) in its
 * 0.21 mode, which answers as gateway/platforms/api_server*.py do at upstream 00067189; and the same client against
 * its 0.18 mode, so 0.18–0.19 keep working. The stand-in is a real HTTP server in a Python process: no mocks.
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, "../../../e2e/hermes-standin/server.py");
const PLUGIN = join(HERE, "../../../apps/hermes-bridge/hermes-plugin");
const KEY = "standin-key-0123456789";

interface StandIn {
  client: HermesClient;
  url: string;
  child: ChildProcess;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function startStandIn(version: "0.18" | "0.21"): Promise<StandIn> {
  const port = await freePort();
  const child = spawn(
    process.env.PYTHON ?? "python3",
    [SERVER, "--port", String(port), "--key", KEY, "--plugin", PLUGIN, "--hermes", version],
    {
      // No bridge: these scripts call no mnote tool.
      env: {
        ...process.env,
        MNOTE_BRIDGE_URL: "http://127.0.0.1:9",
        MNOTE_TOKEN: "unused",
        PYTHONDONTWRITEBYTECODE: "1",
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  // The stand-in says it listens once it does: wait for that line, not for a time.
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the stand-in exited with ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("hermes stand-in on")) resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return { url, child, client: new HermesClient({ url, apiKey: KEY, timeoutMs: 10_000 }) };
}

/** The run's events until one of `type` (or the end of the stream). */
async function readUntil(client: HermesClient, runId: string, type: AskEvent["type"]): Promise<AskEvent[]> {
  const seen: AskEvent[] = [];
  for await (const event of await client.events(runId)) {
    seen.push(event);
    if (event.type === type) break;
  }
  return seen;
}

const asked = { sessionId: "mnote_doc_1_0123456789abcdef0123456789abcdef", userId: "u_ada", instructions: "page" };
const recordAll = { record: async (run: { runId: string }) => ({ runId: run.runId }) };

let v21: StandIn;
let v18: StandIn;
beforeAll(async () => {
  [v21, v18] = await Promise.all([startStandIn("0.21"), startStandIn("0.18")]);
}, 30_000);
afterAll(() => {
  v21?.child.kill("SIGTERM");
  v18?.child.kill("SIGTERM");
});

describe("what the panel asks Hermes, by what it says it supports (GET /v1/capabilities)", () => {
  it("0.21 says runs_idempotency (an object: supported, durable, retention); 0.18 has no such route and supports none of it", async () => {
    expect(await v21.client.capabilities()).toEqual({ runsIdempotency: true });
    // The shape the client reads is 0.21.3's own (api_server_runs.py _idempotency_capabilities), not a flag.
    const raw = (await (
      await fetch(`${v21.url}/v1/capabilities`, { headers: { authorization: `Bearer ${KEY}` } })
    ).json()) as { features: { runs_idempotency: unknown } };
    expect(raw.features.runs_idempotency).toMatchObject({ supported: true });
    expect(await v18.client.capabilities()).toEqual({ runsIdempotency: false });
    const readiness = await checkReadiness(v21.client, ["mnote"]);
    expect(readiness).toMatchObject({ connected: true, features: { runsIdempotency: true } });
  });

  it("0.21: a start retried after the first turn is stored replays the same run (no history resent), and the conversation is Hermes's own", async () => {
    const features = await v21.client.capabilities();
    const first = await startAskRun({
      hermes: v21.client,
      records: recordAll,
      asked,
      input: "What did I ask first?",
      followUp: false,
      startKey: "question_0001",
      features,
    });
    await readUntil(v21.client, first.runId, "completed");
    const ask = () =>
      startAskRun({
        hermes: v21.client,
        records: recordAll,
        asked,
        input: "What did I ask then?",
        followUp: true,
        startKey: "question_0002",
        features,
      });
    const second = await ask();
    const events = await readUntil(v21.client, second.runId, "completed");
    // Hermes loaded the conversation from session_id: the earlier question is there.
    expect(events.at(-1)).toMatchObject({
      type: "completed",
      output: expect.stringContaining("What did I ask first?"),
    });
    // The same start again, now that the second turn is stored too: the same run, not 409, and Hermes says it
    // replayed it (202, `Idempotency-Replayed: true`).
    const replays = async () =>
      (
        (await (await fetch(`${v21.url}/standin/stats`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
          runs_replayed: number;
        }
      ).runs_replayed;
    const before = await replays();
    expect((await ask()).runId).toBe(second.runId);
    expect(await replays()).toBe(before + 1);
  });

  it("0.21: another question under a key already used is the contract's idempotency conflict, not a gateway failure", async () => {
    const features = await v21.client.capabilities();
    const start = (input: string) =>
      startAskRun({
        hermes: v21.client,
        records: recordAll,
        asked: { ...asked, sessionId: "mnote_doc_2_0123456789abcdef0123456789abcdef" },
        input,
        followUp: false,
        startKey: "question_conflict",
        features,
      });
    await start("What did I ask first?");
    const refused = await start("What did I ask last?").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HermesRefused);
    expect(hermesFailureAnswer(refused)).toMatchObject({ code: "mnote_tool_idempotency_conflict", status: 409 });
  });

  it("0.18: no key is sent and a follow-up hands Hermes the conversation (it loads none)", async () => {
    const session = { ...asked, sessionId: "mnote_doc_3_0123456789abcdef0123456789abcdef" };
    const first = await startAskRun({
      hermes: v18.client,
      records: recordAll,
      asked: session,
      input: "What did I ask first?",
      followUp: false,
      startKey: "question_0001",
    });
    await readUntil(v18.client, first.runId, "completed");
    const second = await startAskRun({
      hermes: v18.client,
      records: recordAll,
      asked: session,
      input: "What did I ask then?",
      followUp: true,
      startKey: "question_0002",
    });
    const events = await readUntil(v18.client, second.runId, "completed");
    expect(events.at(-1)).toMatchObject({
      type: "completed",
      output: expect.stringContaining("What did I ask first?"),
    });
  });
});

describe("0.21's run states and answers", () => {
  it("a run orphaned by a restart ends the box as interrupted, and stopping it then is `ended`, not a failure", async () => {
    const { runId } = await v21.client.startRun({ input: "please wait", instructions: "", sessionId: "s_restart" });
    const events = await v21.client.events(runId);
    expect((await events.next()).value).toMatchObject({ type: "delta" });
    await fetch(`${v21.url}/standin/restart`, { method: "POST", headers: { authorization: `Bearer ${KEY}` } });
    const rest: AskEvent[] = [];
    for await (const event of events) rest.push(event);
    const interrupted = rest.find((e) => e.type === "interrupted");
    // The panel's words (what happened, what to do), not Hermes's boilerplate error.
    expect(interrupted).toEqual({ type: "interrupted", message: INTERRUPTED_MESSAGE });
    expect(runEnd(interrupted!)).toMatchObject({ outcome: "lost" });
    expect(runEnd({ type: "status", status: "interrupted", error: null })).toEqual({
      outcome: "lost",
      error: INTERRUPTED_MESSAGE,
    });
    // Hermes answers a stop of it with its status (`interrupted`): over, which the door tells as `ended`.
    expect(await v21.client.stop(runId)).toEqual({ status: "interrupted" });
  });

  it("stop: an ended run answers with its status (0.21) or is gone (0.18); both are over for the panel", async () => {
    for (const hermes of [v21, v18]) {
      const { runId } = await hermes.client.startRun({
        input: "What did I ask?",
        instructions: "",
        sessionId: `s_${Math.random()}`,
      });
      await readUntil(hermes.client, runId, "completed");
      const { status } = await hermes.client.stop(runId);
      expect(status).toBe(hermes === v21 ? "completed" : "ended");
    }
  });

  it("steer adds to a live run (0.21: 200, the answer takes the words in); a run not running is refused; 0.18 has no steer", async () => {
    const { runId } = await v21.client.startRun({ input: "please wait", instructions: "", sessionId: "s_steer" });
    const events = await v21.client.events(runId);
    expect((await events.next()).value).toMatchObject({ type: "delta" });
    await v21.client.steer(runId, "also mention the budget");
    const rest: AskEvent[] = [];
    for await (const event of events) rest.push(event);
    // Hermes's `run.steered` names no words: nothing of it is shown by itself (the box shows what it sent).
    expect(rest.some((e) => e.type === "steered")).toBe(false);
    expect(rest.find((e) => e.type === "completed")).toMatchObject({
      output: expect.stringContaining("also mention the budget"),
    });
    const late = await v21.client.steer(runId, "too late").catch((error: unknown) => error);
    expect(late).toMatchObject({ status: 409, hermesCode: "run_not_accepting_steer" });
    const old = await v18.client.startRun({ input: "please wait", instructions: "", sessionId: "s_steer18" });
    const refused = await v18.client.steer(old.runId, "more").catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 404, hermesCode: null });
    await v18.client.stop(old.runId);
  });

  it("an approval request names itself (0.21) and the answer names it back; another name is refused", async () => {
    const { runId } = await v21.client.startRun({
      input: "something dangerous",
      instructions: "",
      sessionId: "s_appr",
    });
    const events = await readUntil(v21.client, runId, "approval.request");
    const request = events.at(-1) as Extract<AskEvent, { type: "approval.request" }>;
    expect(request.requestId).toMatch(/^appr_/);
    await expect(v21.client.answerApproval(runId, "deny", "appr_other")).rejects.toMatchObject({ status: 409 });
    await v21.client.answerApproval(runId, "deny", request.requestId);
    expect((await v21.client.status(runId)).status).not.toBe("waiting_for_approval");
  });
});
