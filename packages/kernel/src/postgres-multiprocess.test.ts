import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtBin } from "../../process/src/testing/compiled-entry";
import { openPostgresDriver } from "./sql/postgres-driver";
import type { SqlDriver } from "./sql/driver";
import { SqlKernel } from "./sql-kernel";
import { freshSchemaName, postgresAvailability } from "./test-databases";

/**
 * Issue 5, item 4: two bridge *processes* on one PostgreSQL database. Clients
 * retry writes with shared idempotency keys against both, and race title changes
 * on one base revision. Afterwards every key has exactly one command, exactly one
 * racer per revision won (the others got mnote_tool_conflict), and commands, write
 * audits and revision increments agree.
 */
const server = postgresAvailability();
const BRIDGE_ROOT = join(import.meta.dirname, "..", "..", "..", "apps", "hermes-bridge");
const haveBridge = existsSync(join(BRIDGE_ROOT, "src", "main.ts"));
if (server.available && !haveBridge) console.warn(`[mnote] multi-process test skipped: no bridge at ${BRIDGE_ROOT}`);
// The bridge's bin over its build (the recipe `pnpm build` uses), compiled once into a temporary copy. Imported by
// path: the kernel cannot depend on @mnote/process, which depends on it.
let bridgeBin: Promise<string> | undefined;
const builtBridge = () =>
  (bridgeBin ??= builtBin(
    join(BRIDGE_ROOT, "bin", "mnote-bridge.mjs"),
    join(BRIDGE_ROOT, "src", "main.ts"),
    "mnote-bridge.mjs",
  ));

interface Bridge {
  child: ChildProcess;
  url: string;
}

async function startBridge(databaseUrl: string): Promise<Bridge> {
  const child = spawn(process.execPath, [await builtBridge(), "serve", "--port", "0", "--host", "127.0.0.1"], {
    env: {
      ...process.env,
      MNOTE_DATABASE_URL: databaseUrl,
      MNOTE_PG_POOL_MAX: "4",
      MNOTE_BRIDGE_RATE_LIMIT_RPS: "0",
      MNOTE_BRIDGE_LOG_LEVEL: "error",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`bridge did not start in time\n${out}\n${err}`)), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]! });
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`bridge exited with ${code}\n${out}\n${err}`));
    });
  });
}

function stopBridge(bridge: Bridge): Promise<void> {
  return new Promise((resolve) => {
    if (bridge.child.exitCode !== null) return resolve();
    const timer = setTimeout(() => bridge.child.kill("SIGKILL"), 5_000);
    bridge.child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    bridge.child.kill("SIGTERM");
  });
}

interface OutputEnvelope {
  ok: boolean;
  result: Record<string, unknown> | null;
  error: { code: string; message: string } | null;
  audit: { effect: string; commandId: string | null };
}

describe.skipIf(!server.available || !haveBridge)("two bridge processes on one PostgreSQL database", () => {
  const bridges: Bridge[] = [];
  let schemaDriver: SqlDriver | undefined;
  afterAll(async () => {
    await Promise.all(bridges.map(stopBridge));
    await schemaDriver?.close();
  });

  it("one command per shared key, one winner per base revision, and the books agree", async () => {
    const schema = freshSchemaName("mnote_mp");
    const url = new URL(server.url);
    url.searchParams.set("schema", schema);
    const databaseUrl = url.toString();

    // The world, written straight through the kernel; the bridges then share it.
    schemaDriver = await openPostgresDriver(databaseUrl, { dropSchemaOnClose: true, poolMax: 2 });
    const kernel = await SqlKernel.open(schemaDriver);
    const owner = (await kernel.admin.createUser({ id: "owner", name: "Owner" })).id;
    const ws = (
      await kernel.admin.createWorkspace({ id: "ws_mp", name: "Team", ownerId: owner, approvalRequired: false })
    ).id;
    const doc = (await kernel.admin.createPage({ id: "doc_mp", workspaceId: ws, title: "Shared", createdBy: owner }))
      .id;
    const { token } = await kernel.admin.createToken({
      userId: owner,
      holder: "agent",
      scopes: ["page.read", "page.write", "artifact.write"],
    });

    bridges.push(...(await Promise.all([startBridge(databaseUrl), startBridge(databaseUrl)])));
    const [a, b] = bridges as [Bridge, Bridge];

    let n = 0;
    const call = async (
      bridge: Bridge,
      tool: string,
      args: Record<string, unknown>,
      key: string,
    ): Promise<OutputEnvelope> => {
      const envelope = {
        toolName: tool,
        workspaceId: ws,
        documentId: doc,
        actorId: owner,
        sessionId: "mp_session",
        runId: "mp_run",
        toolCallId: `mp_call_${++n}`,
        traceId: "mp_trace",
        capabilityScope: ["page.read", "page.write", "artifact.write"],
        idempotencyKey: key,
        dryRun: false,
        args,
      };
      const response = await fetch(`${bridge.url}/v1/tools/${tool}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(envelope),
      });
      return (await response.json()) as OutputEnvelope;
    };

    // 1. Retried writes: 10 keys, each sent 6 times at once, 3 times to each process.
    const keys = Array.from({ length: 10 }, (_, i) => `mp_key_${i}`);
    const retried = await Promise.all(
      keys.map((key) =>
        Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            call(
              i % 2 ? b : a,
              "mnote.page.save",
              { mode: "append", content: [{ type: "paragraph", text: `from ${key}` }] },
              key,
            ),
          ),
        ),
      ),
    );
    for (const answers of retried) {
      expect(answers.every((answer) => answer.ok)).toBe(true);
      const commandIds = new Set(answers.map((answer) => answer.audit.commandId));
      expect(commandIds.size).toBe(1);
      expect([...commandIds][0]).toMatch(/^cmd_/);
    }

    // 2. Racers: 8 title changes on one base revision, 4 per process; three rounds.
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      const base = (await kernel.getPage(doc))!.revision;
      const racers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call(
            i % 2 ? b : a,
            "mnote.page.update_title",
            { title: `round ${round} racer ${i}`, baseRevision: base },
            `mp_race_${round}_${i}`,
          ),
        ),
      );
      expect(racers.filter((answer) => answer.ok)).toHaveLength(1);
      expect(racers.filter((answer) => answer.error?.code === "mnote_tool_conflict")).toHaveLength(7);
      expect((await kernel.getPage(doc))!.revision).toBe(base + 1);
    }

    // 3. The books agree.
    const one = async (sql: string) => Number((await schemaDriver!.get<{ n: number }>(sql))?.n);
    const expected = keys.length + rounds;
    expect(
      await schemaDriver.all(`SELECT idempotency_key FROM commands GROUP BY idempotency_key HAVING COUNT(*) > 1`),
    ).toEqual([]);
    expect(await one(`SELECT COUNT(*) AS n FROM commands`)).toBe(expected);
    expect(await one(`SELECT COUNT(*) AS n FROM audit_log WHERE effect = 'write' AND outcome = 'ok'`)).toBe(expected);
    expect(await one(`SELECT revision - 1 AS n FROM pages WHERE id = 'doc_mp'`)).toBe(expected);
    expect((await kernel.getBlocks(doc)).map((block) => block.text).sort()).toEqual(
      keys.map((key) => `from ${key}`).sort(),
    );
  }, 180_000);
});
