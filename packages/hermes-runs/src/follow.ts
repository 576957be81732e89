import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import type { HermesClient, NumberedRunLine, RunLine } from "./client";
import { hermesWordOn } from "./pump";
import { endLine, type RunEnd, runEnd } from "./run-end";

/**
 * A run's stored lines and state, as any panel instance reads them: the router's `panel.ask.lines` (the
 * signed-in person's run only), or `kernel.ask` in this package's tests.
 */
export interface RunLineReader {
  /**
   * The run's lines after line `after`, in order, at most `limit`, and its state: `live` while some instance
   * reads it from Hermes, `silent` when that instance stopped marking it alive (it died: Hermes serves a run's
   * events once), `ended`, or `gone` (swept, or never recorded).
   */
  readRun(
    runId: string,
    after: number,
    limit: number,
  ): Promise<{ lines: { seq: number; line: string }[]; state: "live" | "silent" | "ended" | "gone" }>;
}

export interface FollowOptions {
  reader: RunLineReader;
  hermes: HermesClient;
  runId: string;
  /** The last line the reader had: it goes on after it. */
  after: number;
  /** A reader that comes back (a reload): an ended run answers only how it ended, never its text again. */
  reload: boolean;
  signal?: AbortSignal;
  /** Waits before looking for new lines of a live run again. */
  wait: (ms: number) => Promise<void>;
  pollMs?: number;
}

/**
 * A run's lines for one reader, from the store, until the run ends: what `panel.hermes.events` streams.
 * The reader going away stops the reading, not the run. A store that fails says `lost` and ends.
 */
export async function* followRun(options: FollowOptions): AsyncGenerator<NumberedRunLine> {
  const { reader, hermes, runId, signal } = options;
  let seq = Number.isSafeInteger(options.after) && options.after > 0 ? options.after : 0;
  if (options.reload && (await reader.readRun(runId, 0, 1).catch(() => null))?.state === "ended") {
    // The chat stays in Hermes; the run's calls are in the audit trail. Its lines may be swept already.
    const end = await storedEnd(reader, runId).catch(() => null);
    yield { ...(end ? endLine(end) : await hermesWordOn(hermes, runId)), seq: Number.MAX_SAFE_INTEGER };
    return;
  }
  for (;;) {
    if (signal?.aborted) return;
    const read = await reader.readRun(runId, seq, 200).catch(() => null);
    if (read === null) {
      yield { type: "lost", message: TOOL_ERROR_MESSAGES.unavailable, seq: seq + 1 };
      return;
    }
    if (read.lines.length > 0) {
      for (const { seq: at, line } of read.lines) {
        seq = at;
        yield { ...(JSON.parse(line) as RunLine), seq: at };
      }
      continue;
    }
    // No new line: the state read with them says whether more may come (lines written since come next time).
    const { state } = read;
    if (state === "ended" || state === "gone") return;
    if (state === "silent") {
      // The instance that read Hermes's stream is gone (Hermes serves it once): Hermes's word on the run.
      yield { ...(await hermesWordOn(hermes, runId)), seq: seq + 1 };
      return;
    }
    await options.wait(options.pollMs ?? 200);
  }
}

/** How an ended run ended, from its stored lines (null: none left, e.g. swept). */
async function storedEnd(reader: RunLineReader, runId: string): Promise<RunEnd | null> {
  let end: RunEnd | null = null;
  for (let after = 0; ;) {
    const { lines } = await reader.readRun(runId, after, 500);
    if (lines.length === 0) return end;
    for (const { seq, line } of lines) {
      after = seq;
      end = runEnd(JSON.parse(line) as RunLine) ?? end;
    }
  }
}

/** Lines as newline-delimited JSON, pulled as the reader reads (a slow browser slows the reading, nothing else). */
export function ndjson(lines: AsyncGenerator<NumberedRunLine>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}
