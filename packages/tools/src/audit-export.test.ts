import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@mnote/kernel";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditStreamJob, deliverTo } from "./audit-stream";
import { createToolsContext } from "./context";
import { createOperatorCaller } from "./routers/operator";
import { useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";
import type { World } from "./test-support";

const MINUTE = 60_000;

/** A page.get by the owner's agent token, through the router like every door: one read record. */
async function read(w: World, overrides: Record<string, unknown> = {}) {
  const out = await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, overrides), w.tokens.ownerAgent);
  expect(out.ok).toBe(true);
}

describe.each(testKernels())("audit export and stream ($name)", ({ name, open }) => {
  const world = useWorlds(open);

  it("exports a range oldest first with the trail's fields, actorIsAgent and the Hermes ids; a bad range is refused", async () => {
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const w = await world({ clock });
    const operator = createOperatorCaller(createToolsContext({ kernel: w.kernel }));
    await read(w, {
      sessionId: "hermes_session",
      runId: "hermes_run",
      toolCallId: "hermes_call",
      traceId: "hermes_trace",
    });
    clock.advance(MINUTE);
    await read(w);
    clock.advance(MINUTE);
    await read(w);
    const all = await operator.audit.export({ since: "2026-03-01", until: "2026-03-02" });
    const calls = all.records.filter((record) => record.toolName === "mnote.page.get");
    expect(calls).toHaveLength(3);
    expect(calls[0]).toMatchObject({
      effect: "read",
      outcome: "ok",
      actorId: w.ids.owner,
      actorIsAgent: true,
      workspaceId: w.ids.ws,
      documentId: w.ids.page,
      sessionId: "hermes_session",
      runId: "hermes_run",
      toolCallId: "hermes_call",
      traceId: "hermes_trace",
      at: "2026-03-01T10:00:00.000Z",
    });
    expect(Object.keys(calls[0]!)).not.toContain("detail");
    expect(all.cursor).toBeNull();
    // [since, until): the middle minute only.
    const middle = await operator.audit.export({
      since: "2026-03-01T10:01:00.000Z",
      until: "2026-03-01T10:02:00.000Z",
    });
    expect(middle.records.map((r) => r.at)).toEqual(["2026-03-01T10:01:00.000Z"]);
    expect(
      (await operator.audit.export({ since: "2026-03-01", until: "2026-03-02", workspaceId: "nope" })).records,
    ).toEqual([]);
    await expect(operator.audit.export({ since: "2026-03-02", until: "2026-03-01" })).rejects.toThrow(
      /--since must be before --until/,
    );
    await expect(operator.audit.export({ since: "yesterday", until: "2026-03-01" })).rejects.toThrow();
  });

  it("pages through a range with the cursor: every record once, in id order, whatever the page size", async () => {
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const w = await world({ clock });
    for (let i = 0; i < 7; i++) {
      await read(w);
      clock.advance(1000);
    }
    const operator = createOperatorCaller(createToolsContext({ kernel: w.kernel }));
    const everything = (await operator.audit.export({ since: "2026-01-01", until: "2026-04-01" })).records.map(
      (r) => r.id,
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 9 }), async (limit) => {
        const seen: number[] = [];
        let cursor: string | undefined;
        for (;;) {
          const page = await operator.audit.export({ since: "2026-01-01", until: "2026-04-01", cursor, limit });
          seen.push(...page.records.map((r) => r.id));
          if (page.cursor === null) break;
          cursor = page.cursor;
        }
        expect(seen).toEqual(everything);
      }),
      { numRuns: 9 },
    );
  });

  it("streams to a file at least once: the cursor moves only past what was delivered, settled records only", async () => {
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const w = await world({ clock });
    const path = join(mkdtempSync(join(tmpdir(), "mnote-stream-")), "audit.ndjson");
    const target = { url: `file:${path}` };
    await read(w);
    let fail = true;
    const flaky = async (lines: string) => {
      if (fail) throw new Error("endpoint down");
      await deliverTo(target)(lines);
    };
    const job = auditStreamJob(w.kernel, target, flaky);
    // Too young to stream: nothing sent, nothing failed.
    expect(await job(clock.now())).toEqual({ streamed: 0 });
    clock.advance(2 * MINUTE);
    await expect(job(clock.now())).rejects.toThrow("endpoint down");
    expect(await w.kernel.getStreamCursor(target.url)).toBe(0);
    fail = false;
    const first = await job(clock.now());
    expect(first.streamed).toBeGreaterThan(0);
    await read(w);
    clock.advance(2 * MINUTE);
    expect((await job(clock.now())).streamed).toBe(1);
    expect(await job(clock.now())).toEqual({ streamed: 0 });
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number });
    const ids = lines.map((line) => line.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(await w.kernel.getStreamCursor(target.url)).toBe(ids.at(-1));
  });

  it("a stream endpoint that never answers holds up no tool call", async () => {
    const clock = new ManualClock("2026-03-01T10:00:00.000Z");
    const w = await world({ clock });
    const received: IncomingMessage[] = [];
    const server = createServer((request) => void received.push(request)); // never answers
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`;
      await read(w);
      clock.advance(2 * MINUTE);
      const running = auditStreamJob(w.kernel, { url, token: "siem-secret" })(clock.now());
      running.catch(() => undefined);
      await expect.poll(() => received.length).toBe(1);
      expect(received[0]!.headers).toMatchObject({
        authorization: "Bearer siem-secret",
        "content-type": "application/x-ndjson",
      });
      // The push hangs on its endpoint; a call through the router answers meanwhile.
      await read(w);
      expect(await w.kernel.getStreamCursor(url)).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  // One database, two instances' schedulers: the advisory lock is PostgreSQL's (SQLite and PGlite serve one process).
  it.runIf(name === "PostgreSQL server")(
    "streams from one instance at a time: a second run meanwhile skips, so no page is pushed twice",
    async () => {
      const clock = new ManualClock("2026-03-01T10:00:00.000Z");
      const w = await world({ clock });
      const path = join(mkdtempSync(join(tmpdir(), "mnote-stream-")), "audit.ndjson");
      const target = { url: `file:${path}` };
      await read(w);
      clock.advance(2 * MINUTE);
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let delivering = () => {};
      const started = new Promise<void>((resolve) => (delivering = resolve));
      const slow = async (lines: string) => {
        delivering();
        await held;
        await deliverTo(target)(lines);
      };
      const first = auditStreamJob(w.kernel, target, slow)(clock.now());
      await started;
      // The first run is in the middle of delivering its page: the second finds the target taken.
      expect(await auditStreamJob(w.kernel, target)(clock.now())).toEqual({ streamed: 0, skipped: 1 });
      release();
      expect((await first).streamed).toBeGreaterThan(0);
      const ids = readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { id: number }).id);
      expect(new Set(ids).size).toBe(ids.length);
    },
  );
});
