import { type AskEvent, type HermesClient, type RunLine } from "./client";
import { ApprovalPolicy } from "./policy";
import { endLine, LOST_MESSAGE, type RunEnd, runEnd } from "./run-end";

/**
 * Where a run's lines go while it lasts, for every panel instance's readers: the kernel's `ask` records
 * (`kernel.ask` is one), swept once nobody can follow the run (decision 0031). One writer per run: the
 * instance pumping it.
 */
export interface RunLineStore {
  /** Appends the lines (JSON) after the run's last and marks it alive; `ended` marks it over. */
  appendRunLines(runId: string, lines: readonly string[], ended: boolean): Promise<unknown>;
}

export interface PumpOptions {
  hermes: HermesClient;
  store: RunLineStore;
  runId: string;
  /** A failure the pump goes on after (a write of lines, a denial Hermes did not take): no run text in it. */
  warn?: (message: string, error: unknown) => void;
  /** How often the run is marked alive while Hermes is silent (a model thinking, a person deciding). */
  heartbeatMs?: number;
  /** Text is written at most this often: a token-by-token stream must not become a row per token. */
  flushMs?: number;
  /** A run's lines kept at most (text is merged into one line per flush); past it only what the run did is kept. */
  maxLines?: number;
}

/**
 * Reads the run's events from Hermes (it serves them to one reader) and writes them, as the panel's lines, to
 * the store, where every instance's readers find them. Approval requests that are not for an mnote tool are
 * answered `deny` here, on the server, and recorded as such; the rest are relayed with once/deny. Answers how
 * the run ended (never throws: a Hermes that went away is a `lost` run).
 */
export async function pumpRun(options: PumpOptions): Promise<RunEnd> {
  const { hermes, store, runId } = options;
  const warn = options.warn ?? (() => undefined);
  const maxLines = options.maxLines ?? 2_000;
  const policy = new ApprovalPolicy();
  let pending: RunLine[] = [];
  let text = "";
  let written = 0;
  let end: RunEnd = { outcome: "lost", error: LOST_MESSAGE };
  let closed = false;
  /** Text so far, then the line: the order the person saw them in. */
  const push = (line: RunLine) => {
    end = runEnd(line) ?? end;
    if (text) pending.push({ type: "delta", text });
    text = "";
    pending.push(line);
  };
  const flush = async (ended = false) => {
    const lines = text ? [...pending, { type: "delta", text } satisfies RunLine] : pending;
    pending = [];
    text = "";
    // Past the bound only what the run did is kept; its whole answer comes with `completed` anyway.
    const keep = lines.length <= maxLines - written ? lines : lines.filter((line) => line.type !== "delta");
    written += keep.length;
    await store.appendRunLines(
      runId,
      keep.map((line) => JSON.stringify(line)),
      ended,
    );
  };
  const heartbeat = setInterval(
    () => void store.appendRunLines(runId, [], false).catch((error) => warn("run not marked alive", error)),
    options.heartbeatMs ?? 20_000,
  );
  let timer: ReturnType<typeof setTimeout> | null = null;
  let chain = Promise.resolve();
  const enqueueFlush = () => {
    chain = chain.then(() => flush()).catch((error) => warn("run lines not written", error));
  };
  const schedule = (now: boolean) => {
    if (now) {
      if (timer) clearTimeout(timer);
      timer = null;
      enqueueFlush();
    } else
      timer ??= setTimeout(() => {
        timer = null;
        enqueueFlush();
      }, options.flushMs ?? 150);
  };
  try {
    const events = await hermes.events(runId);
    for await (const event of events) {
      const line = await decide(policy, hermes, runId, event, warn);
      if (line.type === "delta") {
        text += line.text;
        schedule(false);
        continue;
      }
      push(line);
      schedule(true);
      if (line.type === "closed") closed = true;
    }
    if (!closed) push(await hermesWordOn(hermes, runId));
  } catch {
    push(await hermesWordOn(hermes, runId));
  } finally {
    clearInterval(heartbeat);
    if (timer) clearTimeout(timer);
    await chain;
    await flush(true).catch((error) => warn("run lines not written", error));
  }
  return end;
}

/** What the panel does with one event: an approval request is relayed (once/deny) or denied here. */
async function decide(
  policy: ApprovalPolicy,
  hermes: HermesClient,
  runId: string,
  event: AskEvent,
  warn: (message: string, error: unknown) => void,
): Promise<RunLine> {
  policy.observe(event);
  if (event.type !== "approval.request") return event;
  const verdict = policy.verdict(event);
  if (verdict.relay) return { ...event, choices: verdict.choices };
  await hermes.answerApproval(runId, "deny", event.requestId).catch((error) => warn("approval not denied", error));
  return { type: "approval.denied", description: event.description, command: event.command, reason: verdict.reason };
}

/** Hermes's own word on how a run ended, or `lost` when Hermes does not say (gone, or the run goes on there). */
export async function hermesWordOn(hermes: HermesClient, runId: string): Promise<RunLine> {
  try {
    const status = await hermes.status(runId);
    const end = runEnd({ type: "status", status: status.status, error: status.error });
    if (end && end.outcome !== "lost") return endLine(end);
  } catch {
    // Hermes is gone: say so.
  }
  return { type: "lost", message: LOST_MESSAGE };
}
