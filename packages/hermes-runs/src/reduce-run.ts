import type { NumberedRunLine, RunLine } from "./client";
import { type RunOutcome, runEnd } from "./run-end";

/** One tool call of a run as the panel shows it. */
export interface StreamedCall {
  tool: string;
  preview: string | null;
  status: "running" | "done" | "error";
  durationSeconds: number | null;
}

export type RunPhase = "running" | "waiting" | "stopping" | "completed" | "failed" | "stopped" | "lost";

/** What a person sees of one run; kept in the tab's memory (mnote keeps no chat text). */
export interface RunView {
  runId: string;
  phase: RunPhase;
  /** Hermes's answer as it arrives. */
  text: string;
  calls: StreamedCall[];
  approval: { description: string; command: string | null; choices: string[]; requestId: string | null } | null;
  /** Approval requests the panel's server refused without asking (not for an mnote tool). */
  refused: { description: string; command: string | null; reason: string }[];
  message: string | null;
  /** The last line read: a reader that comes back (a reload, another instance) goes on after it. */
  lastSeq: number;
}

export const newRunView = (runId: string): RunView => ({
  runId,
  phase: "running",
  text: "",
  calls: [],
  approval: null,
  refused: [],
  message: null,
  lastSeq: 0,
});

export const isLive = (phase: RunPhase) => phase === "running" || phase === "waiting" || phase === "stopping";

/** The phase a run's end puts it in (run-end.ts decides which lines end a run, and how). */
const END_PHASE: Record<RunOutcome, RunPhase> = {
  completed: "completed",
  failed: "failed",
  cancelled: "stopped",
  lost: "lost",
};

/** The run after one more line. Pure: the same lines in the same order give the same view. */
export function reduceRun(state: RunView, line: RunLine | NumberedRunLine): RunView {
  const seq = "seq" in line && typeof line.seq === "number" ? line.seq : null;
  // A line already read (a reader that resumed one line early) changes nothing.
  if (seq !== null && seq <= state.lastSeq) return state;
  const next = applyLine(state, line);
  return seq === null ? next : { ...next, lastSeq: seq };
}

function applyLine(s: RunView, line: RunLine): RunView {
  switch (line.type) {
    case "delta":
      return { ...s, text: s.text + line.text };
    case "tool.started":
      return {
        ...s,
        calls: [...s.calls, { tool: line.tool, preview: line.preview, status: "running", durationSeconds: null }],
      };
    case "tool.completed": {
      const index = s.calls.findIndex((c) => c.tool === line.tool && c.status === "running");
      if (index === -1) return s;
      const calls = s.calls.slice();
      calls[index] = { ...calls[index]!, status: line.error ? "error" : "done", durationSeconds: line.durationSeconds };
      return { ...s, calls };
    }
    case "approval.request":
      return {
        ...s,
        phase: "waiting",
        approval: {
          description: line.description,
          command: line.command,
          choices: line.choices,
          requestId: line.requestId ?? null,
        },
      };
    case "approval.responded":
      return { ...s, phase: s.phase === "waiting" ? "running" : s.phase, approval: null };
    case "approval.denied":
      return {
        ...s,
        refused: [...s.refused, { description: line.description, command: line.command, reason: line.reason }],
      };
    case "completed":
      return { ...s, phase: END_PHASE[runEnd(line)!.outcome], text: s.text || line.output, approval: null };
    case "failed":
      return {
        ...s,
        phase: END_PHASE[runEnd(line)!.outcome],
        approval: null,
        message: `Hermes's run failed: ${line.message}`,
      };
    case "cancelled":
      return {
        ...s,
        phase: END_PHASE[runEnd(line)!.outcome],
        approval: null,
        message: "Stopped. Hermes did nothing after the stop; the calls it made before are listed below.",
      };
    case "interrupted":
      return { ...s, phase: END_PHASE[runEnd(line)!.outcome], approval: null, message: line.message };
    case "steered":
      // What the person added shows in their words, as the turn it became.
      return { ...s, text: `${s.text}${s.text ? "\n\n" : ""}> ${line.text}\n\n` };
    case "lost":
      return isLive(s.phase)
        ? { ...s, phase: END_PHASE[runEnd(line)!.outcome], approval: null, message: line.message }
        : s;
    case "status": {
      const end = runEnd(line)!;
      const phase = END_PHASE[end.outcome];
      return {
        ...s,
        phase,
        approval: null,
        message:
          phase === "completed"
            ? null
            : line.status === "interrupted"
              ? end.error
              : `Hermes says this run is ${line.status}${line.error ? `: ${line.error}` : ""}.`,
      };
    }
    case "closed":
      return s;
  }
}
