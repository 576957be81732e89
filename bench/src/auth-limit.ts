import { startBridge, type RunningBridge } from "@mnote/hermes-bridge";
import { fmtMs, fmtPct, median, percentile, roundOrder, sequential, table } from "./stats";
import { discardingLogger } from "./bridge";
import { benchWorld, paragraphs } from "./world";

export interface AuthLimitOptions {
  rounds: number;
  callsPerRound: number;
}

/**
 * The failed-authentication limit's cost on a valid call (issue 20): `mnote.page.get` over the HTTP tool endpoint,
 * side by side on three bridges over one database: the limit off; on (the default 30 failures a minute, the
 * kernel's shared counter) with a clean address; on with the caller's address over its budget (a flood of bad
 * tokens from the same address came first), where a valid call pays one token read before the router.
 * Sides interleaved and rotated each round; one call at a time.
 */
export async function runAuthLimit(options: AuthLimitOptions) {
  const world = await benchWorld("authlimit");
  const page = await world.newPage(paragraphs(3));
  const start = (limit: boolean) =>
    startBridge({
      kernel: world.kernel,
      port: 0,
      host: "127.0.0.1",
      logger: discardingLogger(),
      rateLimit: null,
      ...(limit ? {} : { authFailureLimit: null }),
      env: {},
    });
  const off = await start(false);
  const on = await start(true);
  const flooded = await start(true);
  const post = (bridge: RunningBridge, token: string) =>
    fetch(`${bridge.url}/v1/tools/mnote.page.get`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(world.envelope("mnote.page.get", page, {})),
    }).then(async (response) => {
      const body = (await response.json()) as { ok: boolean };
      return { status: response.status, ok: body.ok };
    });
  // The flood: bad tokens from 127.0.0.1 until the limit answers 429.
  for (let i = 0; i < 40; i++) await post(flooded, `mnt_bad_${i}`);
  if ((await post(flooded, "mnt_bad_last")).status !== 429) throw new Error("authlimit: the flood was not limited");

  const sides = [
    { name: "limit off", bridge: off },
    { name: "limit on, clean address", bridge: on },
    { name: "limit on, address over its budget", bridge: flooded },
  ];
  // Warm-up: JIT, statement caches, keep-alive connections, on every side.
  for (const side of sides) for (let i = 0; i < 50; i++) await post(side.bridge, world.token);
  const latencies = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  const perRound = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const side of roundOrder(sides, round)) {
      const run = await sequential(options.callsPerRound, async () => {
        const answer = await post(side.bridge, world.token);
        if (!answer.ok) throw new Error(`authlimit: ${side.name}: a valid call failed (${answer.status})`);
      });
      latencies.get(side.name)!.push(...run.latencies);
      perRound.get(side.name)!.push(median(run.latencies));
    }
  }
  await Promise.all([off.close(), on.close(), flooded.close()]);
  await world.kernel.close();

  // A ratio is the median of the per-round ratios against the limit-off side of the same round.
  const ratio = (name: string) =>
    median(perRound.get(name)!.map((m, round) => m / perRound.get("limit off")![round]!)) - 1;
  const rows = sides.map((side) => {
    const all = latencies.get(side.name)!;
    return [
      side.name,
      fmtMs(median(all)),
      fmtMs(percentile(all, 95)),
      side.name === "limit off" ? "—" : `${ratio(side.name) >= 0 ? "+" : ""}${fmtPct(ratio(side.name))}`,
    ];
  });
  const cost = ratio("limit on, clean address");
  const floodedCost = ratio("limit on, address over its budget");
  return {
    markdown: table(["bridge", "median per call (ms)", "p95 (ms)", "vs limit off (median of per-round ratios)"], rows),
    cost,
    floodedCost,
    pass: cost <= 0.02,
  };
}
