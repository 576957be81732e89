import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AskEvent,
  askEvents,
  HermesClient,
  HermesRefused,
  HermesUnreachable,
  parseSse,
  type SseItem,
} from "./client";

/** A byte stream cut into the given pieces (to split lines, CRLFs and characters across chunks). */
function streamOf(...pieces: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("parseSse", () => {
  it("reads data lines, comments and multi-line data, whatever the line endings and chunk cuts", async () => {
    const items = await collect(
      parseSse(
        streamOf('data: {"a":', "1}\r", "\n\r\n: keep", "alive\n\ndata: x\ndata: y\r\revent: named\ndata:z\n\n"),
      ),
    );
    expect(items).toEqual<SseItem[]>([
      { kind: "event", event: null, data: '{"a":1}' },
      { kind: "comment", text: "keepalive" },
      { kind: "event", event: null, data: "x\ny" },
      { kind: "event", event: "named", data: "z" },
    ]);
  });

  it("keeps a character split between chunks whole, and ends an unterminated last event", async () => {
    const bytes = new TextEncoder().encode("data: plan ✓");
    const items = await collect(parseSse(streamOf(bytes.slice(0, bytes.length - 1), bytes.slice(bytes.length - 1))));
    expect(items).toEqual([{ kind: "event", event: null, data: "plan ✓" }]);
  });
});

describe("askEvents: Hermes's run events as the panel shows them", () => {
  it("maps each Hermes event and stops at `: stream closed`", async () => {
    const sse = (payload: object) => `data: ${JSON.stringify(payload)}\n\n`;
    const events = await collect(
      askEvents(
        streamOf(
          sse({ event: "tool.started", run_id: "run_1", timestamp: 1, tool: "mnote_page_get", preview: "doc_plan" }),
          ": keepalive\n\n",
          sse({ event: "reasoning.available", run_id: "run_1", text: "thinking" }),
          sse({ event: "tool.completed", run_id: "run_1", tool: "mnote_page_get", duration: 0.042, error: false }),
          sse({ event: "message.delta", run_id: "run_1", delta: "Added " }),
          "data: not json\n\n",
          sse({
            event: "approval.request",
            run_id: "run_1",
            command: "rm -rf /tmp/x",
            description: "dangerous command",
            choices: ["once", "session", "deny"],
          }),
          sse({ event: "approval.responded", run_id: "run_1", choice: "deny", resolved: 1 }),
          sse({ event: "some.future.event" }),
          sse({ event: "run.completed", run_id: "run_1", output: "Added the line.", usage: { total_tokens: 3 } }),
          ": stream closed\n\n",
          sse({ event: "message.delta", delta: "after the end" }),
        ),
      ),
    );
    expect(events).toEqual<AskEvent[]>([
      { type: "tool.started", tool: "mnote_page_get", preview: "doc_plan" },
      { type: "tool.completed", tool: "mnote_page_get", durationSeconds: 0.042, error: false },
      { type: "delta", text: "Added " },
      {
        type: "approval.request",
        description: "dangerous command",
        command: "rm -rf /tmp/x",
        choices: ["once", "session", "deny"],
        requestId: null, // 0.18–0.19 name no request
      },
      { type: "approval.responded", choice: "deny" },
      { type: "completed", output: "Added the line." },
      { type: "closed" },
    ]);
  });

  it("Hermes 0.21: tool-search lookups are no calls of the run, a steered run says no words, a completed call's preview is not shown twice", async () => {
    const sse = (payload: object) => `data: ${JSON.stringify(payload)}\n\n`;
    const events = await collect(
      askEvents(
        streamOf(
          sse({ event: "tool.started", tool: "tool_describe", preview: null }),
          sse({ event: "tool.completed", tool: "tool_describe", duration: 0, error: false, preview: "{}" }),
          sse({ event: "tool.started", tool: "mnote_page_get", preview: null }),
          sse({ event: "tool.completed", tool: "mnote_page_get", duration: 0.5, error: false, preview: '{"ok":true}' }),
          sse({ event: "run.steered", accepted: true }),
          sse({ event: "message.interim", text: "Reading the page first.", already_streamed: false }),
        ),
      ),
    );
    expect(events).toEqual<AskEvent[]>([
      { type: "tool.started", tool: "mnote_page_get", preview: null },
      { type: "tool.completed", tool: "mnote_page_get", durationSeconds: 0.5, error: false },
    ]);
  });

  it("reports failed and cancelled runs", async () => {
    const events = await collect(
      askEvents(
        streamOf('data: {"event":"run.failed","error":"model said 401"}\n\ndata: {"event":"run.cancelled"}\n\n'),
      ),
    );
    expect(events).toEqual([{ type: "failed", message: "model said 401" }, { type: "cancelled" }]);
  });
});

describe("HermesClient against an HTTP server speaking Hermes's run API", () => {
  const KEY = "test-key-0123456789";
  const seen: { method: string; url: string; auth: string | undefined; body: unknown }[] = [];
  let server: Server;
  let url: string;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    return text ? JSON.parse(text) : undefined;
  };

  beforeAll(async () => {
    // node:http ignores the handler's promise; a failure inside shows as the test's failed request.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    server = createServer(async (req, res) => {
      const body = await readBody(req);
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      if (req.headers.authorization !== `Bearer ${KEY}`)
        return json(res, 401, {
          error: { message: "Invalid API key", type: "invalid_request_error", code: "invalid_api_key" },
        });
      if (req.method === "POST" && req.url === "/v1/runs")
        return json(res, 202, { run_id: "run_abc", status: "started" });
      if (req.method === "GET" && req.url === "/v1/runs/run_abc/events") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ event: "message.delta", run_id: "run_abc", delta: "hi" })}\n\n`);
        res.end(": stream closed\n\n");
        return;
      }
      if (req.method === "POST" && req.url === "/v1/runs/run_abc/approval")
        return json(res, 409, {
          error: { message: "Run has no pending approval: run_abc", code: "approval_not_pending" },
        });
      if (req.method === "POST" && req.url === "/v1/runs/run_abc/stop")
        return json(res, 200, { run_id: "run_abc", status: "stopping" });
      if (req.method === "GET" && req.url === "/api/sessions/mnote_doc_s1/messages") {
        return json(res, 200, {
          object: "list",
          session_id: "mnote_doc_s1",
          data: [
            { role: "user", content: "add a line" },
            { role: "tool", content: "{}" },
            { role: "assistant", content: "Done." },
            { role: "assistant", content: null },
          ],
        });
      }
      return json(res, 404, { error: { message: "Session not found", code: "session_not_found" } });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("starts a run with the key, the instructions and the session id, and follows its events", async () => {
    const client = new HermesClient({ url, apiKey: KEY });
    expect(await client.startRun({ input: "add a line", instructions: "page doc", sessionId: "mnote_doc_s1" })).toEqual(
      { runId: "run_abc" },
    );
    expect(seen.at(-1)).toEqual({
      method: "POST",
      url: "/v1/runs",
      auth: `Bearer ${KEY}`,
      body: { input: "add a line", instructions: "page doc", session_id: "mnote_doc_s1" },
    });
    expect(await collect(await client.events("run_abc"))).toEqual([{ type: "delta", text: "hi" }, { type: "closed" }]);
    await client.stop("run_abc");
    expect(seen.at(-1)?.url).toBe("/v1/runs/run_abc/stop");
  });

  it("hands back the conversation's text turns, and none for a session Hermes does not know", async () => {
    const client = new HermesClient({ url, apiKey: KEY });
    expect(await client.conversation("mnote_doc_s1")).toEqual([
      { role: "user", content: "add a line" },
      { role: "assistant", content: "Done." },
    ]);
    expect(await client.conversation("mnote_doc_other")).toEqual([]);
  });

  it("turns Hermes's refusals into HermesRefused with its message, and a closed port into HermesUnreachable", async () => {
    await expect(
      new HermesClient({ url, apiKey: "wrong-key-0123456789" }).startRun({
        input: "x",
        instructions: "y",
        sessionId: "s",
      }),
    ).rejects.toMatchObject({
      name: "HermesRefused",
      status: 401,
      hermesMessage: "Invalid API key",
    });
    const conflict = await new HermesClient({ url, apiKey: KEY })
      .answerApproval("run_abc", "once")
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(HermesRefused);
    expect(conflict).toMatchObject({ status: 409, hermesCode: "approval_not_pending" });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(
      new HermesClient({ url: `http://127.0.0.1:${port}`, apiKey: KEY }).startRun({
        input: "x",
        instructions: "y",
        sessionId: "s",
      }),
    ).rejects.toBeInstanceOf(HermesUnreachable);
  });
});
