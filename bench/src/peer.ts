import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { payloadFingerprint } from "@mnote/tools";
import { fmtMs, fmtRatio, fmtRate, median, now, roundOrder, sequential, table } from "./stats";
import { stdioClient } from "./transports";
import { benchWorld, paragraphs, tempDir } from "./world";

/** The memory server's bin from node_modules, as its package.json names it. */
function memoryBin(): string {
  const manifest = fileURLToPath(import.meta.resolve("@modelcontextprotocol/server-memory/package.json"));
  const { bin } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string> };
  return join(dirname(manifest), bin["mcp-server-memory"]!);
}

export interface PeerOptions {
  sizes: number[];
  rounds: number;
  callsPerRound: number;
  /** Calls per round of page.get on the page whose body is `size` blocks (big answers: fewer calls). */
  bigPageCalls: number;
  /**
   * Calls of every operation on both servers before the first size is measured (each later size: 3). Both are fresh
   * processes; a few calls leave the JIT cold, and the first size measured the warm-up: a 10-block `page.get`, whose
   * cost does not depend on the store, took 1.50 ms at 100 items and 0.71 ms at 1,000 in one run (2026-12-04). After
   * 50 calls mnote's longer path (router, checks, audit) was still being compiled: 0.66–0.76× at 100 items, against
   * 0.81–1.03× after 500 for the same code (2026-12-06).
   */
  warmUpCalls: number;
}

/** The reference memory server's JSONL store with `count` entities of one observation each. */
function writeMemoryFile(path: string, count: number) {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    lines.push(
      JSON.stringify({
        type: "entity",
        name: `entity_${i}`,
        entityType: "note",
        observations: [`Observation ${i}: a sentence of ordinary length about entity ${i}.`],
      }),
    );
  }
  writeFileSync(path, lines.join("\n"));
}

const OPS = ["memAdd", "mnoteNote", "memOpen", "mnoteGet", "mnoteGetBig"] as const;
type Op = (typeof OPS)[number];

/**
 * Section 3: `@modelcontextprotocol/server-memory` over stdio against the bridge over
 * stdio, both spawned as an MCP client spawns them, at growing store sizes.
 */
export async function runPeer(options: PeerOptions) {
  const dir = tempDir("peer");
  const memoryFile = join(dir, "memory.jsonl");
  writeMemoryFile(memoryFile, 0);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const memory = new Client({ name: "mnote-bench", version: "0.0.0" });
  await memory.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [memoryBin()],
      env: { ...env, MEMORY_FILE_PATH: memoryFile },
      stderr: "ignore",
    }),
  );

  const world = await benchWorld("peer");
  const notesPage = await world.newPage(paragraphs(10));
  const mnote = await stdioClient(world.databaseUrl, world.token);

  let notes = 0;
  /** N AI notes on the page, written by the kernel's own command path (the rows N create_ai_note calls leave). */
  const seedNotes = async (upTo: number) => {
    for (; notes < upTo; notes++) {
      const content = `Note ${notes}: a sentence of ordinary length about the page.`;
      const key = `seed_note_${notes}`;
      const outcome = await world.kernel.execute({
        identity: {
          toolName: "mnote.artifact.create_ai_note",
          workspaceId: world.ws,
          documentId: notesPage,
          actorId: world.owner,
          tokenId: null,
          holder: "person",
          sessionId: "bench_seed",
          runId: "bench_seed",
          toolCallId: key,
          traceId: key,
        },
        command: { name: "artifact.aiNote.create", content },
        idempotency: {
          key,
          fingerprint: payloadFingerprint({
            toolName: "mnote.artifact.create_ai_note",
            workspaceId: world.ws,
            documentId: notesPage,
            args: { content },
          }),
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        },
      });
      if (outcome.kind !== "applied") throw new Error(`seeding a note: ${outcome.kind}`);
    }
  };

  const results: Array<{ size: number; stats: Record<Op, { rate: number; p50: number }> }> = [];
  let n = 0;
  for (const size of options.sizes) {
    writeMemoryFile(memoryFile, size);
    await seedNotes(size);
    const bigPage = await world.newPage(paragraphs(size));
    const calls: Record<Op, () => Promise<unknown>> = {
      memAdd: async () => {
        n++;
        const out = await memory.callTool({
          name: "add_observations",
          arguments: {
            observations: [{ entityName: `entity_${(n * 7919) % size}`, contents: [`Added observation ${n}.`] }],
          },
        });
        if (out.isError) throw new Error("add_observations failed");
      },
      mnoteNote: async () => {
        n++;
        const out = await mnote.callTool({
          name: "mnote_artifact_create_ai_note",
          arguments: { workspaceId: world.ws, documentId: notesPage, content: `Added note ${n}.` },
        });
        if (out.isError) throw new Error(`create_ai_note failed: ${JSON.stringify(out.structuredContent)}`);
      },
      memOpen: async () => {
        n++;
        const out = await memory.callTool({
          name: "open_nodes",
          arguments: { names: [`entity_${(n * 7919) % size}`] },
        });
        if (out.isError) throw new Error("open_nodes failed");
      },
      mnoteGet: async () => {
        const out = await mnote.callTool({
          name: "mnote_page_get",
          arguments: { workspaceId: world.ws, documentId: notesPage },
        });
        if (out.isError) throw new Error("page.get failed");
      },
      mnoteGetBig: async () => {
        const out = await mnote.callTool({
          name: "mnote_page_get",
          arguments: { workspaceId: world.ws, documentId: bigPage },
        });
        if (out.isError) throw new Error("page.get (big) failed");
      },
    };
    const warmUp = results.length === 0 ? options.warmUpCalls : 3;
    for (const op of OPS) await sequential(warmUp, () => calls[op]());
    // The warm-up's writes leave the memory server's store as it was (its file rewritten); mnote keeps its notes:
    // a `page.get` of the notes' page does not read them.
    if (warmUp > 3) writeMemoryFile(memoryFile, size);
    const samples: Record<Op, Array<{ rate: number; p50: number }>> = {
      memAdd: [],
      mnoteNote: [],
      memOpen: [],
      mnoteGet: [],
      mnoteGetBig: [],
    };
    for (let round = 0; round < options.rounds; round++) {
      // The operations take turns call by call (the order rotating each step), so the two sides of a ratio are
      // measured in the same milliseconds: in blocks of calls per operation, a few milliseconds of the shared
      // machine's load moved one side's median by 20% (0.81× and 1.03× for the same code, 2026-12-06).
      const latencies: Record<Op, number[]> = { memAdd: [], mnoteNote: [], memOpen: [], mnoteGet: [], mnoteGetBig: [] };
      const busyMs: Record<Op, number> = { memAdd: 0, mnoteNote: 0, memOpen: 0, mnoteGet: 0, mnoteGetBig: 0 };
      // The big page's answers are large: it takes a turn at bigPageCalls of the steps, spread over the round.
      const bigCalls = Math.min(options.bigPageCalls, options.callsPerRound);
      const bigSteps = new Set(
        Array.from({ length: bigCalls }, (_, k) => Math.floor((k * options.callsPerRound) / bigCalls)),
      );
      for (let i = 0; i < options.callsPerRound; i++) {
        for (const op of roundOrder(OPS, round + i)) {
          if (op === "mnoteGetBig" && !bigSteps.has(i)) continue;
          const started = now();
          await calls[op]();
          const ms = now() - started;
          latencies[op].push(ms);
          busyMs[op] += ms;
        }
      }
      for (const op of OPS)
        samples[op].push({ rate: latencies[op].length / (busyMs[op] / 1000), p50: median(latencies[op]) });
    }
    const stats = Object.fromEntries(
      OPS.map((op) => [
        op,
        { rate: median(samples[op].map((s) => s.rate)), p50: median(samples[op].map((s) => s.p50)) },
      ]),
    ) as Record<Op, { rate: number; p50: number }>;
    // Speed ratio from per-call medians (a few slow calls among ten move a rate a lot, a median barely).
    const ratio = (a: Op, b: Op) => median(samples[a].map((s, i) => samples[b][i]!.p50 / s.p50));
    results.push({
      size,
      stats: { ...stats, ratios: { write: ratio("mnoteNote", "memAdd"), read: ratio("mnoteGet", "memOpen") } } as never,
    });
  }
  await memory.close();
  await mnote.close();
  await world.kernel.close();

  const rows = results.flatMap(({ size, stats }) => {
    const s = stats as Record<Op, { rate: number; p50: number }> & { ratios: { write: number; read: number } };
    const cell = (op: Op) => `${fmtRate(s[op].rate)} (${fmtMs(s[op].p50)} ms)`;
    return [
      [
        size.toLocaleString("en-US"),
        "write",
        `add_observations: ${cell("memAdd")}`,
        `create_ai_note: ${cell("mnoteNote")}`,
        `**${fmtRatio(s.ratios.write)}**`,
      ],
      [
        size.toLocaleString("en-US"),
        "read",
        `open_nodes (1 entity): ${cell("memOpen")}`,
        `page.get (10-block page): ${cell("mnoteGet")}`,
        `**${fmtRatio(s.ratios.read)}**`,
      ],
      [
        size.toLocaleString("en-US"),
        "read, big page",
        "—",
        `page.get (${size.toLocaleString("en-US")}-block page): ${cell("mnoteGetBig")}`,
        "—",
      ],
    ];
  });
  const markdown = table(
    [
      "stored items",
      "op",
      "server-memory: calls/s (p50)",
      "mnote bridge: calls/s (p50)",
      "mnote speed vs memory (p50 ratio)",
    ],
    rows,
  );
  return { markdown, results };
}
