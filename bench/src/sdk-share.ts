import { READ_CACHE_OFF } from "./bridge";
import { ask, type SplitPath, startSplit } from "./cpu-split";
import { table } from "./stats";
import { countProfile, type Profile } from "./v8-profile";

/**
 * What the MCP SDK's 2026-07-28 handler (`createMcpHandler`) does per request that the bridge does not need, each a
 * set of frames of V8's profile (inclusive: a frame's time with everything it calls). The SDK keeps checking,
 * dispatching and framing every request; these are the parts of it whose result the bridge throws away or already has.
 */
const SDK_WORK = [
  {
    label: "`Response.json` of the answer the bridge replaces with its own bytes (and the Web stream around it)",
    frames: [/^json node:internal\/deps\/undici/],
  },
  {
    label: "closing the exchange's per-request transport (`Protocol._onclose`, with the `SdkError` it makes each time)",
    frames: [/^close @modelcontextprotocol\/server\/dist\/mcp-/],
  },
  {
    label: "the `SdkError` alone (an `Error` with its stack trace, made on every close, thrown at nothing)",
    frames: [/^SdkError @modelcontextprotocol\/server/],
  },
  {
    label: "the handler's classification of a request the door already classified (`classifyEntryRequest`)",
    frames: [/^classifyEntryRequest @modelcontextprotocol\/server/],
  },
  {
    label: "the Web `Request` (its `Headers`, its `AbortSignal`) around a Node request whose body is already parsed",
    frames: [/^_Request node:internal\/deps\/undici/],
  },
] as const;

/**
 * Profiles the servers' process (`cpu-split.ts`) while `calls` 2026-07-28 `tools/call`s by plain `fetch` are
 * answered one at a time, and gives each entry of SDK_WORK its µs per call and its share of the process's busy time.
 */
export async function runSdkShare(options: { calls: number; pageBlocks: number; uncached?: boolean }) {
  const path: SplitPath = "mcpRaw2026";
  const split = await startSplit(options.pageBlocks, options.uncached ? READ_CACHE_OFF : {});
  for (let i = 0; i < 200; i++) await split.calls[path]();
  await ask(split.proc, "profile-start");
  for (let i = 0; i < options.calls; i++) await split.calls[path]();
  const { profile } = await ask<{ profile: Profile }>(split.proc, "profile-stop");
  await split.close();

  const { stack, busy, sampleUs } = countProfile(profile);
  const samples = profile.samples ?? [];
  const inWork = SDK_WORK.map(() => 0);
  for (const id of samples) {
    const names = stack(id);
    SDK_WORK.forEach((work, i) => {
      if (names.some((name) => work.frames.some((frame) => frame.test(name)))) inWork[i]!++;
    });
  }
  const us = (count: number) => (count * sampleUs) / options.calls;
  const share = (count: number) => `${((count / Math.max(1, busy)) * 100).toFixed(1)}%`;
  const markdown = table(
    [
      "what the SDK does per 2026-07-28 request that the bridge does not need",
      "µs per call",
      "of the servers' busy time",
    ],
    [
      ...SDK_WORK.map((work, i) => [work.label, us(inWork[i]!).toFixed(0), share(inWork[i]!)]),
      ["**the servers' process, busy, per call**", `**${us(busy).toFixed(0)}**`, "100%"],
    ],
  );
  // The SdkError row is inside the close row: the total counts each sample once, whatever rows it is in.
  const unneeded = samples.filter((id) =>
    SDK_WORK.some((work) => stack(id).some((name) => work.frames.some((frame) => frame.test(name)))),
  ).length;
  return { markdown, unneededShare: unneeded / Math.max(1, busy), busyUs: us(busy) };
}
