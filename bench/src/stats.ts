/** Small statistics and formatting helpers. Every figure the bench reports is a median of rounds. */

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100) of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const now = () => performance.now();

/**
 * The order variants run in at step `round`, so none always runs first (warm caches, GC debt, work one variant leaves
 * running in the background): each step rotates the list by one, and every other full turn of rotations runs them
 * reversed. Two variants go AB, BA, BA, AB, …; each comes first and second equally often, and follows the other
 * equally often. (Reversing on odd steps instead undid the odd rotation for two variants: they always ran A then B.)
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  const rotated = [...items.slice(shift), ...items.slice(0, shift)];
  return Math.floor(round / items.length) % 2 === 1 ? rotated.reverse() : rotated;
}

export function fmtRate(callsPerSecond: number): string {
  if (!Number.isFinite(callsPerSecond)) return "n/a";
  if (callsPerSecond >= 10_000) return `${Math.round(callsPerSecond / 100) / 10}k`;
  if (callsPerSecond >= 100) return String(Math.round(callsPerSecond));
  return callsPerSecond.toFixed(1);
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

export function fmtRatio(ratio: number, digits = 2): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(digits)}×` : "n/a";
}

export function fmtPct(ratio: number): string {
  return Number.isFinite(ratio) ? `${(ratio * 100).toFixed(1)}%` : "n/a";
}

export function fmtBytes(bytes: number): string {
  const sign = bytes < 0 ? "-" : "";
  const abs = Math.abs(bytes);
  if (abs >= 1024 * 1024) return `${sign}${(abs / 1024 / 1024).toFixed(1)} MiB`;
  if (abs >= 1024) return `${sign}${(abs / 1024).toFixed(1)} KiB`;
  return `${sign}${abs} B`;
}

/** A Markdown table. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Run `fn` `count` times one after another; the per-call latencies in ms. */
export async function sequential(
  count: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ latencies: number[]; elapsedMs: number }> {
  const latencies: number[] = [];
  const start = now();
  for (let i = 0; i < count; i++) {
    const t = now();
    await fn(i);
    latencies.push(now() - t);
  }
  return { latencies, elapsedMs: now() - start };
}

/**
 * `steps` calls of each side, the sides taking turns call by call in `roundOrder`'s order for step `round + i`: a
 * checkpoint's stall or a moment of the shared machine's load falls on either side alike, where in blocks of calls it
 * fell on one side's block. Answers each side's time in its calls (ms) and CPU time (µs, this process).
 */
export async function takeTurns<S extends string>(
  sides: readonly S[],
  steps: number,
  round: number,
  call: (side: S) => Promise<unknown>,
): Promise<{ ms: Record<S, number>; cpuUs: Record<S, number> }> {
  const ms = Object.fromEntries(sides.map((side) => [side, 0])) as Record<S, number>;
  const cpuUs = { ...ms };
  for (let i = 0; i < steps; i++) {
    for (const side of roundOrder(sides, round + i)) {
      const cpu = process.cpuUsage();
      const started = now();
      await call(side);
      ms[side] += now() - started;
      const used = process.cpuUsage(cpu);
      cpuUs[side] += used.user + used.system;
    }
  }
  return { ms, cpuUs };
}

/** `count` calls with `concurrency` in flight at a time; per-call latencies in ms and the wall time. */
export async function concurrent(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ latencies: number[]; elapsedMs: number }> {
  if (concurrency <= 1) return sequential(count, fn);
  const latencies: number[] = [];
  let next = 0;
  const start = now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const t = now();
      await fn(i);
      latencies.push(now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, elapsedMs: now() - start };
}
