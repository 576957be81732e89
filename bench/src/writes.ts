import { appendArgs } from "./floor";
import { fmtMs, fmtPct, fmtRate, median, now, roundOrder, table } from "./stats";
import { assertOk, benchWorld, paragraphs } from "./world";

export interface WritesOptions {
  rounds: number;
  callsPerRound: number;
}

const VARIANTS = ["fresh", "replay", "dryRun"] as const;
type Variant = (typeof VARIANTS)[number];

/**
 * Section 5: `page.save` (append, one block, 20-block pages) as a fresh write, as an
 * idempotent replay of a write that already landed (same key, same payload), and as a dry run.
 */
export async function runWrites(options: WritesOptions) {
  const world = await benchWorld("writes");
  const applied: Array<Record<string, unknown>> = [];
  let pageId = "";
  let onPage = 0;
  const freshPage = async () => {
    if (!pageId || onPage >= 10) {
      pageId = await world.newPage(paragraphs(20));
      onPage = 0;
    }
    onPage++;
    return pageId;
  };
  // Replays need landed writes: make a pool first (not timed).
  for (let i = 0; i < options.callsPerRound; i++) {
    const envelope = world.envelope("mnote.page.save", await freshPage(), appendArgs(i));
    assertOk(await world.call("mnote.page.save", envelope), "seed write");
    applied.push(envelope);
  }

  const run = async (variant: Variant, count: number) => {
    const envelopes: unknown[] = [];
    for (let i = 0; i < count; i++) {
      if (variant === "replay") envelopes.push(applied[i % applied.length]);
      else
        envelopes.push(
          world.envelope("mnote.page.save", await freshPage(), appendArgs(i), { dryRun: variant === "dryRun" }),
        );
    }
    const latencies: number[] = [];
    const start = now();
    for (const envelope of envelopes) {
      const t = now();
      const out = await world.call("mnote.page.save", envelope);
      latencies.push(now() - t);
      if (!out.ok) assertOk(out, variant);
      if (variant === "replay" && out.audit.effect !== "write") throw new Error("replay answered no stored write");
      if (variant === "dryRun" && out.audit.effect !== "dry_run") throw new Error("dry run wrote");
    }
    return { rate: count / ((now() - start) / 1000), p50: median(latencies) };
  };

  for (const variant of VARIANTS) await run(variant, 50);
  const samples: Record<Variant, Array<{ rate: number; p50: number }>> = { fresh: [], replay: [], dryRun: [] };
  for (let round = 0; round < options.rounds; round++) {
    for (const variant of roundOrder(VARIANTS, round)) samples[variant].push(await run(variant, options.callsPerRound));
  }
  await world.kernel.close();

  const med = (v: Variant, f: "rate" | "p50") => median(samples[v].map((s) => s[f]));
  const vsFresh = (v: Variant) => median(samples[v].map((s, i) => s.rate / samples.fresh[i]!.rate));
  const markdown = table(
    ["call", "calls/s (median)", "p50 ms", "rate vs fresh write"],
    [
      ["fresh write (new idempotency key)", fmtRate(med("fresh", "rate")), fmtMs(med("fresh", "p50")), "100%"],
      [
        "idempotent replay (same key and payload as a landed write)",
        fmtRate(med("replay", "rate")),
        fmtMs(med("replay", "p50")),
        `**${fmtPct(vsFresh("replay"))}**`,
      ],
      [
        "dry run (`dryRun: true`, new key; records the proposal)",
        fmtRate(med("dryRun", "rate")),
        fmtMs(med("dryRun", "p50")),
        `**${fmtPct(vsFresh("dryRun"))}**`,
      ],
    ],
  );
  return { markdown, replayVsFresh: vsFresh("replay"), dryRunVsFresh: vsFresh("dryRun") };
}
