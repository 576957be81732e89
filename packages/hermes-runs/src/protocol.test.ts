import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_MESSAGE, type NumberedRunLine, type RunLine } from "./client";
import { ApprovalPolicy, NOT_MNOTE_APPROVAL } from "./policy";
import { newRunView, reduceRun } from "./reduce-run";
import { matchRecords } from "./match-records";
import { checkToolsets, toolsetsConfigLine } from "./toolsets";

const fold = (lines: (RunLine | NumberedRunLine)[]) => lines.reduce(reduceRun, newRunView("run_1"));

describe("reduceRun: a run's lines as the person sees them", () => {
  it("streams text, tool calls with their outcome, and the end", () => {
    const view = fold([
      { type: "tool.started", tool: "mnote_page_get", preview: null },
      { type: "tool.started", tool: "mnote_page_edit", preview: null },
      { type: "tool.completed", tool: "mnote_page_get", durationSeconds: 0.2, error: false },
      { type: "tool.completed", tool: "mnote_page_edit", durationSeconds: 0.1, error: true },
      { type: "delta", text: "\n\nDone" },
      { type: "delta", text: "." },
      { type: "completed", output: "Done." },
      { type: "closed" },
    ]);
    expect(view.phase).toBe("completed");
    expect(view.text).toBe("\n\nDone.");
    expect(view.calls.map((c) => [c.tool, c.status, c.durationSeconds])).toEqual([
      ["mnote_page_get", "done", 0.2],
      ["mnote_page_edit", "error", 0.1],
    ]);
  });

  it("waits for an approval, goes on after the answer, and lists what the server refused itself", () => {
    const waiting = fold([{ type: "approval.request", description: "d", command: "x", choices: ["once", "deny"] }]);
    expect(waiting).toMatchObject({ phase: "waiting", approval: { choices: ["once", "deny"] } });
    const answered = reduceRun(waiting, { type: "approval.responded", choice: "deny" });
    expect(answered).toMatchObject({ phase: "running", approval: null });
    const refused = reduceRun(answered, {
      type: "approval.denied",
      description: "recursive delete",
      command: "rm -rf x",
      reason: NOT_MNOTE_APPROVAL,
    });
    expect(refused.refused).toHaveLength(1);
    expect(refused.phase).toBe("running");
  });

  it("a lost stream after the end changes nothing; before it, the run is lost", () => {
    expect(
      fold([
        { type: "completed", output: "x" },
        { type: "lost", message: "gone" },
      ]).phase,
    ).toBe("completed");
    expect(fold([{ type: "lost", message: "gone" }])).toMatchObject({ phase: "lost", message: "gone" });
    expect(fold([{ type: "status", status: "cancelled", error: null }]).phase).toBe("stopped");
  });

  it("Hermes 0.21: an interrupted run ends the box with what to do, steered words show, an approval keeps its request id", () => {
    const interrupted = fold([
      { type: "delta", text: "Working" },
      { type: "interrupted", message: "Hermes restarted" },
    ]);
    expect(interrupted).toMatchObject({ phase: "lost", message: "Hermes restarted" });
    expect(fold([{ type: "status", status: "interrupted", error: null }])).toMatchObject({
      phase: "lost",
      message: INTERRUPTED_MESSAGE,
    });
    const steered = fold([
      { type: "delta", text: "Reading" },
      { type: "steered", text: "also the budget" },
    ]);
    expect(steered.phase).toBe("running");
    expect(steered.text).toContain("> also the budget");
    const waiting = fold([
      { type: "approval.request", description: "d", command: null, choices: ["once", "deny"], requestId: "appr_1" },
    ]);
    expect(waiting.approval?.requestId).toBe("appr_1");
  });

  it("a reader that resumes reads every numbered line once, however the stream was cut", () => {
    const lines: NumberedRunLine[] = ["a", "b", "c", "d", "e"].map((text, i) => ({
      type: "delta",
      text,
      seq: i + 1,
    }));
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 4 }), { maxLength: 6 }), (restarts) => {
        // Each reader reads a little and is cut; the next one starts at or before the first line not yet read
        // (a resume may overlap): the view is the same as one clean read.
        let view = newRunView("run_1");
        for (const back of restarts) {
          const from = Math.max(0, view.lastSeq - back);
          for (const line of lines.slice(from, from + 2)) view = reduceRun(view, line);
        }
        for (const line of lines.slice(Math.max(0, view.lastSeq - 1))) view = reduceRun(view, line);
        expect(view.text).toBe("abcde");
        expect(view.lastSeq).toBe(5);
      }),
    );
  });
});

describe("checkToolsets: a panel run is offered only what the operator allowed", () => {
  const report = (enabled: string[]) =>
    ["terminal", "file", "web", "mnote"].map((name) => ({
      name,
      enabled: enabled.includes(name),
      tools: name === "terminal" ? ["terminal", "process"] : [`${name}_tool`],
    }));

  it("is on with the mnote toolset only", () => {
    expect(checkToolsets(report(["mnote"]), ["mnote"])).toEqual({ ok: true });
  });

  it("is off when Hermes would offer terminal, naming it and the config.yaml line to set", () => {
    const verdict = checkToolsets(report(["mnote", "terminal", "file"]), ["mnote"]);
    expect(verdict.ok).toBe(false);
    const problem = (verdict as { problem: string }).problem;
    expect(problem).toContain("file, terminal");
    expect(problem).toContain("terminal, process");
    expect(problem).toContain("platform_toolsets: { api_server: [mnote, no_mcp] }");
  });

  it("is off when mnote is not offered at all, and follows an explicit allow-list", () => {
    expect(checkToolsets(report([]), ["mnote"]).ok).toBe(false);
    expect(checkToolsets(report(["mnote", "web"]), ["mnote", "web"])).toEqual({ ok: true });
    expect(toolsetsConfigLine(["mnote", "web"])).toBe("platform_toolsets: { api_server: [mnote, web, no_mcp] }");
  });
});

describe("ApprovalPolicy: which of Hermes's approval requests the panel relays", () => {
  const request = {
    type: "approval.request" as const,
    description: "d",
    command: "c",
    choices: ["once", "session", "always", "deny"],
  };

  it("denies a request while a tool that is not mnote's runs, or when no tool runs", () => {
    const policy = new ApprovalPolicy();
    expect(policy.verdict(request)).toEqual({ relay: false, reason: NOT_MNOTE_APPROVAL });
    policy.observe({ type: "tool.started", tool: "terminal", preview: "rm -rf x" });
    expect(policy.verdict(request).relay).toBe(false);
    policy.observe({ type: "tool.started", tool: "mnote_page_get", preview: null });
    expect(policy.verdict(request).relay).toBe(false);
  });

  it("relays a request during mnote calls with once and deny only", () => {
    const policy = new ApprovalPolicy();
    policy.observe({ type: "tool.started", tool: "mnote_page_edit", preview: null });
    expect(policy.verdict(request)).toEqual({ relay: true, choices: ["once", "deny"] });
    policy.observe({ type: "tool.completed", tool: "mnote_page_edit", durationSeconds: 1, error: false });
    expect(policy.verdict(request).relay).toBe(false);
  });
});

describe("matchRecords: a run's streamed calls and their audit records", () => {
  const call = (tool: string) => ({ tool, preview: null, status: "done" as const, durationSeconds: 0 });
  const record = (id: number, toolName: string) => ({ id, identity: { toolName } });

  it("joins the n-th call of a tool to the n-th record of it after the run's floor, whatever the order given", () => {
    const records = [record(9, "mnote.page.edit"), record(3, "mnote.page.get"), record(7, "mnote.page.get")];
    const matched = matchRecords(
      [call("mnote_page_get"), call("mnote_page_edit"), call("mnote_page_get"), call("terminal")],
      records,
      5,
    );
    expect(matched.map((r) => r?.id)).toEqual([7, 9, undefined, undefined]);
  });
});
