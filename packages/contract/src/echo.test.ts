import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ECHOED_FIELDS, echoEnvelopeIds, echoField, echoToolName, echoValue, failureEnvelope } from "./echo";
import { InputEnvelopeSchema, OutputEnvelopeSchema } from "./envelope";
import { LIMITS } from "./limits";

/** The contract's bound for each echoed field, written out so a change to a schema shows up here. */
const BOUND = {
  workspaceId: 128,
  documentId: 128,
  actorId: 128,
  sessionId: 256,
  runId: 256,
  toolCallId: 256,
  traceId: 256,
  idempotencyKey: 200,
} as const;

describe("echoing the caller's ids: the contract's rule for each field", () => {
  it.each(ECHOED_FIELDS)("%s: up to its bound, printable and storable, else null", (field) => {
    const bound = BOUND[field];
    expect(echoValue("a".repeat(bound), field)).toBe("a".repeat(bound));
    expect(echoValue("a".repeat(bound + 1), field)).toBeNull();
    expect(echoValue("ü-漢字-😀", field)).toBe("ü-漢字-😀");
    for (const refused of [
      "",
      "line\nforged",
      "bell\u0007",
      "del\u007f",
      "nul\u0000",
      "half\uD800",
      42,
      null,
      undefined,
      {},
      ["id"],
    ]) {
      expect(echoValue(refused, field), JSON.stringify(refused)).toBeNull();
    }
  });

  it("ids are bounded at LIMITS.idLength and trace fields at LIMITS.traceFieldLength", () => {
    expect(BOUND.workspaceId).toBe(LIMITS.idLength);
    expect(BOUND.traceId).toBe(LIMITS.traceFieldLength);
    expect(BOUND.idempotencyKey).toBe(LIMITS.idempotencyKeyLength);
  });

  it("echoes a value exactly when the input envelope would accept it in that field", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ECHOED_FIELDS),
        fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: "binary", maxLength: 300 })),
        (field, value) => {
          const accepted = InputEnvelopeSchema.shape[field].safeParse(value).success;
          expect(echoValue(value, field)).toBe(accepted ? value : null);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("reads fields of an object only", () => {
    expect(echoField({ traceId: "t1" }, "traceId")).toBe("t1");
    expect(echoField("traceId", "traceId")).toBeNull();
    expect(echoField(null, "traceId")).toBeNull();
    expect(echoEnvelopeIds(["t1"])).toEqual({ toolCallId: null, traceId: null, workspaceId: null, documentId: null });
  });

  it("names a refused call by its canonical tool name, else the name as sent when it is a safe id", () => {
    expect(echoToolName("mnote_page_get")).toBe("mnote.page.get");
    expect(echoToolName("mnote.page.delete")).toBe("mnote.page.delete");
    expect(echoToolName("x".repeat(128))).toBe("x".repeat(128));
    expect(echoToolName("x".repeat(129))).toBe("unknown");
    expect(echoToolName("bad\nname")).toBe("unknown");
    expect(echoToolName(7)).toBe("unknown");
  });

  it("builds the contract's failure envelope", () => {
    const raw = { toolCallId: "c1", traceId: "t".repeat(257), workspaceId: "ws", documentId: "doc\u0000" };
    const envelope = failureEnvelope("mnote.page.get", echoEnvelopeIds(raw), {
      code: "mnote_tool_invalid_input",
      message: "no",
    });
    expect(envelope).toEqual({
      ok: false,
      toolName: "mnote.page.get",
      toolCallId: "c1",
      traceId: null,
      result: null,
      audit: { effect: "none", commandId: null, workspaceId: "ws", documentId: null },
      error: { code: "mnote_tool_invalid_input", message: "no" },
    });
    expect(OutputEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });
});
