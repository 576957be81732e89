import type { OutputEnvelope } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hermesDetectsFailure } from "./hermes-wire";
import { hermesSafeJson } from "./model-text";

// Strings that would spell a quoted word in the text, in every case and position.
const trickyString = fc.oneof(
  fc.constantFrom(
    "error",
    "ERROR",
    "Error",
    "failed",
    "FAILED",
    "fAiLeD",
    'say "error',
    'x "Failed',
    "errors",
    "failed!",
  ),
  fc.string(),
  fc.stringMatching(/^[ "\\a-z]{0,12}(error|failed|ERROR|Failed)$/),
);
const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    trickyString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(trickyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

const envelope = (ok: boolean): fc.Arbitrary<OutputEnvelope> =>
  fc.record({
    ok: fc.constant(ok),
    toolName: fc.constantFrom("mnote.page.get", "mnote.page.save", "mnote.option.set"),
    toolCallId: fc.option(trickyString, { nil: null }),
    traceId: fc.option(fc.string(), { nil: null }),
    result: ok ? jsonish : fc.constant(null),
    audit: fc.record({
      effect: fc.constantFrom("read" as const, "write" as const, "dry_run" as const, "none" as const),
      commandId: fc.option(fc.string(), { nil: null }),
      workspaceId: fc.option(trickyString, { nil: null }),
      documentId: fc.option(fc.string(), { nil: null }),
    }),
    error: ok
      ? fc.constant(null)
      : fc.record({ code: fc.constant("mnote_tool_permission_denied" as const), message: trickyString }),
  });

describe("hermesSafeJson", () => {
  it("parses back to exactly the envelope, success or failure", () => {
    fc.assert(
      fc.property(fc.boolean().chain(envelope), (output) => {
        expect(JSON.parse(hermesSafeJson(output))).toStrictEqual(JSON.parse(JSON.stringify(output)));
      }),
      { numRuns: 300 },
    );
  });

  it('never spells "error" or "failed" in the text of a success, so Hermes reads it as one', () => {
    fc.assert(
      fc.property(envelope(true), (output) => {
        const text = hermesSafeJson(output);
        expect(text.toLowerCase()).not.toContain('"error"');
        expect(text.toLowerCase()).not.toContain('"failed"');
        expect(hermesDetectsFailure(text)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("leaves a failure a failure for Hermes", () => {
    fc.assert(
      fc.property(envelope(false), (output) => {
        expect(hermesDetectsFailure(hermesSafeJson(output))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("changes only what it must, and a plain envelope is misread without it", () => {
    const ok: OutputEnvelope = {
      ok: true,
      toolName: "mnote.option.set",
      toolCallId: "call_1",
      traceId: null,
      result: { note: 'the user said "error', status: "Failed", other: "no errors here" },
      audit: { effect: "write", commandId: "cmd_1", workspaceId: "ws", documentId: "doc" },
      error: null,
    };
    expect(hermesDetectsFailure(JSON.stringify(ok))).toBe(true);
    const text = hermesSafeJson(ok);
    expect(text).toBe(
      '{"ok":true,"toolName":"mnote.option.set","toolCallId":"call_1","traceId":null,' +
        '"result":{"note":"the user said \\"\\u0065rror","status":"\\u0046ailed","other":"no errors here"},' +
        '"audit":{"effect":"write","commandId":"cmd_1","workspaceId":"ws","documentId":"doc"},"\\u0065rror":null}',
    );
    expect(hermesDetectsFailure(text)).toBe(false);
  });
});

describe("Hermes failure rule fixture (agent/display.py _detect_tool_failure)", () => {
  it.each([
    ['{"error": "boom"}', true],
    ['{"success": false, "message": "nope"}', true],
    ['{"ok": true, "error": null}', true],
    ['{"ok": true, "note": "failed"}', true],
    ["Error: something", true],
    ['{"ok": true, "\\u0065rror": null}', false],
    ['{"result": "fine"}', false],
  ])("%s → failure %s", (text, failure) => expect(hermesDetectsFailure(text)).toBe(failure));
});
