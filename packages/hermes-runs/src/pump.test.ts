import { ManualClock, openSqliteDriver, SqlKernel } from "@mnote/kernel";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HermesClient, type NumberedRunLine, type RunLine } from "./client";
import { followRun } from "./follow";
import { NOT_MNOTE_APPROVAL } from "./policy";
import { pumpRun } from "./pump";
import { endsRun, LOST_MESSAGE } from "./run-end";

/**
 * The pump and the readers against an HTTP server speaking Hermes's run API (SSE framing, status codes) and the
 * real kernel on SQLite: what one instance writes, any instance reads; a run's end is told once and the same way.
 */
const KEY = "pump-key-0123456789";
const sse = (res: ServerResponse, payload: object) => res.write(`data: ${JSON.stringify(payload)}\n\n`);

describe("pumpRun and followRun", () => {
  let server: Server;
  let hermes: HermesClient;
  const approvals: { runId: string; choice: unknown }[] = [];
  const statuses: Record<string, object> = {};
  let clock: ManualClock;
  let kernel: SqlKernel;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const match = /^\/v1\/runs\/([\w-]+)(\/\w+)?$/.exec(req.url ?? "");
        if (req.headers.authorization !== `Bearer ${KEY}` || !match) return res.writeHead(401).end();
        const [, runId, tail] = match;
        if (tail === "/approval") {
          approvals.push({ runId: runId!, choice: (JSON.parse(body) as { choice: unknown }).choice });
          return res.writeHead(200, { "content-type": "application/json" }).end("{}");
        }
        if (!tail) {
          const status = statuses[runId!];
          if (!status) return res.writeHead(404, { "content-type": "application/json" }).end('{"error":{}}');
          return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(status));
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        if (runId === "run_ok") {
          sse(res, { event: "tool.started", tool: "mnote_page_get", preview: "doc_plan" });
          sse(res, { event: "tool.completed", tool: "mnote_page_get", duration: 0.1, error: false });
          sse(res, { event: "message.delta", delta: "The plan " });
          sse(res, { event: "message.delta", delta: "says ship on Friday." });
          sse(res, { event: "tool.started", tool: "terminal", preview: "rm -rf /" });
          sse(res, { event: "approval.request", description: "dangerous", command: "rm -rf /", choices: ["once"] });
          sse(res, { event: "run.completed", output: "The plan says ship on Friday." });
          return res.end(": stream closed\n\n");
        }
        // Hermes went away mid-run (killed, a proxy cut the stream).
        res.write(`data: ${JSON.stringify({ event: "message.delta", delta: "half an ans" })}\n\n`, () => res.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    hermes = new HermesClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: KEY });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(async () => {
    clock = new ManualClock("2026-01-01T00:00:00.000Z");
    kernel = await SqlKernel.open(openSqliteDriver(":memory:"), { clock });
  });
  afterEach(() => kernel.close());

  const record = (runId: string) =>
    kernel.ask.recordRun({ runId, sessionId: "s", userId: "u", workspaceId: "w", documentId: "d" });
  const noWait = () => Promise.reject(new Error("a reader of an ended run never waits"));
  const read = async (
    runId: string,
    options: { after?: number; reload?: boolean; wait?: () => Promise<void> } = {},
  ) => {
    const out: NumberedRunLine[] = [];
    for await (const line of followRun({
      reader: kernel.ask,
      hermes,
      runId,
      after: options.after ?? 0,
      reload: options.reload ?? false,
      wait: options.wait ?? noWait,
    }))
      out.push(line);
    return out;
  };

  it("writes a run's lines for any reader: text merged, a foreign approval denied on the server, the end once", async () => {
    await record("run_ok");
    expect(await pumpRun({ hermes, store: kernel.ask, runId: "run_ok" })).toEqual({
      outcome: "completed",
      error: null,
    });
    expect(approvals).toEqual([{ runId: "run_ok", choice: "deny" }]);
    const lines = await read("run_ok");
    expect(lines.map((line, index) => line.seq - index)).toEqual(lines.map(() => 1));
    // Text is written in pieces as it comes (at most every 150 ms, and before the next line): joined, it is whole.
    const joined = lines.reduce<RunLine[]>((out, { seq: _, ...line }) => {
      const last = out.at(-1);
      if (line.type === "delta" && last?.type === "delta")
        out[out.length - 1] = { ...last, text: last.text + line.text };
      else out.push(line);
      return out;
    }, []);
    expect(joined).toEqual<RunLine[]>([
      { type: "tool.started", tool: "mnote_page_get", preview: "doc_plan" },
      { type: "tool.completed", tool: "mnote_page_get", durationSeconds: 0.1, error: false },
      { type: "delta", text: "The plan says ship on Friday." },
      { type: "tool.started", tool: "terminal", preview: "rm -rf /" },
      { type: "approval.denied", description: "dangerous", command: "rm -rf /", reason: NOT_MNOTE_APPROVAL },
      { type: "completed", output: "The plan says ship on Friday." },
      { type: "closed" },
    ]);
    expect(lines.filter(endsRun).map((line) => line.type)).toEqual(["completed", "closed"]);
    // A reader resuming after a line gets the rest; one coming back after the end gets only how it ended.
    expect(await read("run_ok", { after: 2 })).toEqual(lines.slice(2));
    expect(await read("run_ok", { reload: true })).toEqual([
      { type: "status", status: "completed", error: null, seq: Number.MAX_SAFE_INTEGER },
    ]);
  });

  it("calls a run whose Hermes went away lost, keeping the text it had, unless Hermes says how it ended", async () => {
    await record("run_cut");
    expect(await pumpRun({ hermes, store: kernel.ask, runId: "run_cut" })).toEqual({
      outcome: "lost",
      error: LOST_MESSAGE,
    });
    expect((await read("run_cut")).map(({ seq: _, ...line }) => line)).toEqual<RunLine[]>([
      { type: "delta", text: "half an ans" },
      { type: "lost", message: LOST_MESSAGE },
    ]);
    statuses.run_cut2 = { object: "hermes.run", status: "failed", error: "model said 401" };
    await record("run_cut2");
    expect(await pumpRun({ hermes, store: kernel.ask, runId: "run_cut2" })).toEqual({
      outcome: "failed",
      error: "model said 401",
    });
  });

  it("follows a live run as another instance writes it, and asks Hermes once its reader went silent", async () => {
    await record("run_live");
    await kernel.ask.appendRunLines("run_live", [JSON.stringify({ type: "delta", text: "thinking" })], false);
    let waits = 0;
    // The other instance's pump writes while this reader waits (no clock, no sleep: the wait is the write).
    const lines = await read("run_live", {
      wait: async () => {
        waits += 1;
        await kernel.ask.appendRunLines("run_live", [JSON.stringify({ type: "cancelled" })], true);
      },
    });
    expect(waits).toBe(1);
    expect(lines.map((line) => line.type)).toEqual(["delta", "cancelled"]);

    await record("run_orphan");
    await kernel.ask.appendRunLines("run_orphan", [JSON.stringify({ type: "delta", text: "so far" })], false);
    statuses.run_orphan = { object: "hermes.run", status: "completed", error: null };
    clock.advance(75_000);
    expect((await read("run_orphan")).map(({ seq, ...line }) => [seq, line])).toEqual([
      [1, { type: "delta", text: "so far" }],
      [2, { type: "status", status: "completed", error: null }],
    ]);
  });

  it("after the sweep a reader coming back hears Hermes's word on the run, and no line is left", async () => {
    await record("run_ok");
    await pumpRun({ hermes, store: kernel.ask, runId: "run_ok" });
    const written = (await kernel.ask.listRunLines("run_ok", 0, 100)).length;
    clock.advance(60_000);
    expect(await kernel.ask.sweepRuns({ graceMs: 60_000 })).toEqual({ lines: 0, runs: 0 });
    clock.advance(1);
    expect(await kernel.ask.sweepRuns({ graceMs: 60_000 })).toEqual({ lines: written, runs: 0 });
    expect(await kernel.ask.listRunLines("run_ok", 0, 100)).toEqual([]);
    statuses.run_ok = { object: "hermes.run", status: "completed", error: null };
    expect(await read("run_ok", { reload: true })).toEqual([
      { type: "status", status: "completed", error: null, seq: Number.MAX_SAFE_INTEGER },
    ]);
  });
});
