/**
 * Push latency (issue 13, item 8): from the moment an agent's dry run is answered to the moment a panel
 * that has the page open hears about it, over the real wire: the bridge and the panel(s) run as their own
 * processes (`mnote-bridge serve`, `next start` of the built panel), the agent calls the bridge's HTTP door,
 * the subscriber reads `panel.page.changes` as server-sent events from a panel's `/api/trpc`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openKernel, openPostgresDriver } from "@mnote/kernel";
import { ALL_SCOPES, tempDir } from "./world";
import { fmtMs, percentile, table } from "./stats";

export interface PushSettings {
  /** Dry runs measured per setup (after a few unmeasured ones). */
  samples: number;
  /** PostgreSQL URL; no server there: that setup is reported as skipped. */
  postgresUrl: string;
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A port the OS says is free right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

interface Started {
  child: ChildProcess;
  url: string;
}

async function waitFor(url: string, child: ChildProcess, name: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url, { redirect: "manual" })).status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000}s`);
}

const childEnv = (databaseUrl: string) => ({
  ...process.env,
  MNOTE_DATABASE_URL: databaseUrl,
  NEXT_TELEMETRY_DISABLED: "1",
});

async function startBridge(databaseUrl: string): Promise<Started> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(ROOT, "apps/hermes-bridge/bin/mnote-bridge.mjs"), "serve", "--port", String(port), "--host", "127.0.0.1"],
    {
      cwd: ROOT,
      env: { ...childEnv(databaseUrl), MNOTE_BRIDGE_RATE_LIMIT_RPS: "0", MNOTE_BRIDGE_LOG_LEVEL: "error" },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child, "bridge");
  return { child, url };
}

async function startPanel(databaseUrl: string): Promise<Started> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(ROOT, "apps/web/node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: join(ROOT, "apps/web"),
      env: childEnv(databaseUrl),
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/signin`, child, "panel");
  return { child, url };
}

async function stop(started: Started[]) {
  for (const { child } of started) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(
    started
      .filter(({ child }) => child.exitCode === null)
      .map(({ child }) => new Promise((resolve) => child.once("exit", resolve))),
  );
}

/** The page's change events, read from a panel's `/api/trpc` as the browser's EventSource would. */
async function subscribe(panelUrl: string, cookie: string, ref: { workspaceId: string; documentId: string }) {
  const abort = new AbortController();
  const response = await fetch(
    `${panelUrl}/api/trpc/panel.page.changes?input=${encodeURIComponent(JSON.stringify(ref))}`,
    {
      headers: { cookie: `mnote_session=${encodeURIComponent(cookie)}`, accept: "text/event-stream" },
      signal: abort.signal,
    },
  );
  if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`panel.page.changes answered ${response.status}: ${await response.text()}`);
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  // The stream's first event carries the page's cursor: only from then on does this panel hear every change (before
  // it, PostgreSQL's LISTEN may still be connecting, and the browser's panel covers that gap with the cursor it read
  // with the page). Measuring from the headers alone lost a first change now and then.
  let opened: () => void = () => undefined;
  const open = new Promise<void>((resolve) => (opened = resolve));
  let buffer = "";
  const waiting: Array<(at: number) => void> = [];
  const arrived: number[] = [];
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const at = performance.now();
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .find((line) => line.startsWith("data: "))
            ?.slice(6);
          const event = block.split("\n").find((line) => line.startsWith("event: "));
          if (event || !data) continue;
          opened();
          if ((JSON.parse(data) as { changed?: boolean }).changed !== true) continue;
          const wake = waiting.shift();
          if (wake) wake(at);
          else arrived.push(at);
        }
      }
    } catch {
      // aborted at the end of the run
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    open,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error("the stream sent no first event within 10 s")), 10_000);
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    /** When the next "changed" event arrived (performance.now()). */
    next(timeoutMs = 5_000): Promise<number> {
      const ready = arrived.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no change event within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close: () => abort.abort(),
  };
}

interface Setup {
  name: string;
  /** For the summary line. */
  short: string;
  databaseUrl: string;
  panels: number;
  /** Which door the agent's dry run goes through: the bridge, or panel A as a person's dry run. */
  writer: "bridge" | "panel A";
}

async function measure(setup: Setup, samples: number) {
  const kernel = await openKernel(setup.databaseUrl);
  const suffix = Math.random().toString(36).slice(2, 8);
  const owner = (await kernel.admin.createUser({ id: `push_owner_${suffix}`, name: "Push owner" })).id;
  const ws = (
    await kernel.admin.createWorkspace({
      id: `push_ws_${suffix}`,
      name: "Push",
      ownerId: owner,
      approvalRequired: false,
    })
  ).id;
  const page = (
    await kernel.admin.createPage({
      id: `push_page_${suffix}`,
      workspaceId: ws,
      title: "Push",
      blocks: [],
      createdBy: owner,
    })
  ).id;
  const agent = (
    await kernel.admin.createToken({ userId: owner, holder: "agent", scopes: ALL_SCOPES, label: "push agent" })
  ).token;
  const person = (
    await kernel.admin.createToken({ userId: owner, holder: "person", scopes: ALL_SCOPES, label: "push panel" })
  ).token;
  await kernel.close();

  const started: Started[] = [];
  try {
    const [bridge, ...panels] = await Promise.all([
      startBridge(setup.databaseUrl),
      ...Array.from({ length: setup.panels }, () => startPanel(setup.databaseUrl)),
    ]);
    started.push(bridge, ...panels);
    const subscriberPanel = panels.at(-1)!;
    const ref = { workspaceId: ws, documentId: page };
    const stream = await subscribe(subscriberPanel.url, person, ref);
    let n = 0;
    const dryRun = async () => {
      n++;
      const envelope = {
        toolName: "mnote.page.update_title",
        workspaceId: ws,
        documentId: page,
        actorId: owner,
        sessionId: "push_session",
        runId: "push_run",
        toolCallId: `push_call_${n}`,
        traceId: `push_trace_${n}`,
        capabilityScope: ALL_SCOPES,
        idempotencyKey: `push_key_${n}_${suffix}`,
        dryRun: true,
        args: { title: `Proposed title ${n}` },
      };
      const response =
        setup.writer === "bridge"
          ? await fetch(`${bridge.url}/v1/tools/mnote.page.update_title`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${agent}` },
              body: JSON.stringify(envelope),
            })
          : await fetch(`${panels[0]!.url}/api/trpc/mnote.page.update_title`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                cookie: `mnote_session=${encodeURIComponent(person)}`,
                origin: panels[0]!.url,
              },
              body: JSON.stringify(envelope),
            });
      const text = await response.text();
      const answered = performance.now();
      if (response.status !== 200 || !text.includes('"ok":true'))
        throw new Error(`dry run failed (${response.status}): ${text.slice(0, 300)}`);
      return answered;
    };
    // Warm-up: the panel's first requests load its route code, the first SQL prepares its statements.
    for (let i = 0; i < 5; i++) {
      await dryRun();
      await stream.next();
    }
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const answered = await dryRun();
      const heard = await stream.next();
      // Negative: the event reached the panel's client before the agent had read its own answer.
      latencies.push(heard - answered);
      // Apart, so every sample is one change and not a burst coalesced into one event.
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    stream.close();
    return { latencies };
  } finally {
    await stop(started);
  }
}

async function postgresReachable(url: string): Promise<string | null> {
  try {
    const kernel = await openKernel(url);
    await kernel.close();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export async function runPush(settings: PushSettings) {
  if (!existsSync(join(ROOT, "apps/web/.next/BUILD_ID"))) {
    // The panel runs as `next start`: without a build there is nothing to measure, and the other sections still run.
    return {
      markdown: "Not measured: the panel is not built (`cd apps/web && npx next build`, then run again).",
      results: [],
      pass: false,
      skipped: true,
    };
  }
  const dir = tempDir("push");
  const schema = `mnote_bench_push_${process.pid}`;
  const pgUrl = `${settings.postgresUrl}${settings.postgresUrl.includes("?") ? "&" : "?"}schema=${schema}`;
  const setups: Setup[] = [
    {
      name: "SQLite: bridge → one panel (same file, two processes)",
      short: "SQLite bridge → panel",
      databaseUrl: `file:${join(dir, "push.db")}`,
      panels: 1,
      writer: "bridge",
    },
    {
      name: "PostgreSQL: bridge → panel B (two panel instances)",
      short: "PostgreSQL bridge → panel B",
      databaseUrl: pgUrl,
      panels: 2,
      writer: "bridge",
    },
    {
      name: "PostgreSQL: panel A → panel B (a person's dry run on A)",
      short: "PostgreSQL panel A → panel B",
      databaseUrl: pgUrl,
      panels: 2,
      writer: "panel A",
    },
  ];
  const pgProblem = await postgresReachable(settings.postgresUrl);
  const rows: string[][] = [];
  const results: Array<{ name: string; short: string; p50: number; p95: number }> = [];
  try {
    for (const setup of setups) {
      if (setup.databaseUrl.startsWith("postgres") && pgProblem) {
        rows.push([setup.name, "skipped", "", "", "", `no PostgreSQL (${pgProblem})`]);
        continue;
      }
      const { latencies } = await measure(setup, settings.samples);
      const p50 = percentile(latencies, 50);
      const p95 = percentile(latencies, 95);
      results.push({ name: setup.name, short: setup.short, p50, p95 });
      rows.push([
        setup.name,
        String(latencies.length),
        fmtMs(p50),
        fmtMs(p95),
        fmtMs(Math.max(...latencies)),
        p50 <= 200 ? "PASS" : "FAIL",
      ]);
    }
  } finally {
    // The bench's schema goes with it.
    if (!pgProblem) await (await openPostgresDriver(settings.postgresUrl, { schema, dropSchemaOnClose: true })).close();
  }
  const markdown = table(["Setup", "Samples", "p50 ms", "p95 ms", "max ms", "p50 ≤ 200 ms"], rows);
  return { markdown, results, pass: results.length > 0 && results.every((r) => r.p50 <= 200), skipped: false };
}
