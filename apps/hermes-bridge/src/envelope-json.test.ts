import type { Block } from "@mnote/contract";
import { blocksJson } from "@mnote/tools";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { EnvelopeJson } from "./envelope-json";
import { hermesDetectsFailure, hermesFallbackDetectsFailure, hermesMcpHandlerResult } from "./hermes/hermes-wire";
import { toResult } from "./mcp/server";
import { createTestWorld, envelopeFor, routerCall } from "./test-support";

// Block text that spells the words Hermes's classifier looks for, quotes, escapes, beyond Latin-1 and lone surrogates.
const text = fc.oneof(
  fc.constantFrom("error", '"failed"', 'say "error', "Grüße…", "日本語のページ", "😀", "\\", "\u2028", "\ud800"),
  fc.string({ unit: "binary", maxLength: 30 }),
);

describe("EnvelopeJson of a page.get answer (its window's blocks written from the router's own JSON)", async () => {
  const world = await createTestWorld();
  afterAll(() => world.kernel.close());
  let n = 0;

  it("is the envelope's JSON, Hermes-safe JSON, and ASCII bytes of it, raw and inside a JSON string", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 12 }), text, async (texts, title) => {
        const documentId = `ej_${n++}`;
        const blocks = texts.map((t, i): Block => ({ id: `b${i}`, type: "paragraph", text: t }));
        await world.kernel.admin.createPage({
          id: documentId,
          workspaceId: world.ids.ws,
          title: `t ${title}`,
          blocks,
          createdBy: world.ids.owner,
        });
        const output = await routerCall(
          world.kernel,
          world.tokens.owner,
          "mnote.page.get",
          envelopeFor(world, "mnote.page.get", {}, { documentId }),
        );
        expect(output.ok).toBe(true);
        // The fast path is taken: the window's blocks come with the JSON the router measured them by.
        expect(blocksJson((output.result as { blocks: unknown }).blocks)).toBeDefined();
        for (let pass = 0; pass < 2; pass++) {
          // Twice: the second answer of the same window is written from what the first one made of it.
          const json = EnvelopeJson.of(output);
          expect(json.plain).toBe(JSON.stringify(output));
          expect(JSON.parse(json.safe)).toStrictEqual(JSON.parse(JSON.stringify(output)));
          expect(hermesDetectsFailure(json.safe)).toBe(false);
          const ascii = Buffer.concat(json.asciiBytes());
          expect(ascii.every((byte) => byte < 0x80)).toBe(true);
          expect(JSON.parse(ascii.toString("latin1"))).toStrictEqual(JSON.parse(JSON.stringify(output)));
          const inString = Buffer.concat([Buffer.from('"'), ...json.asciiInStringBytes(), Buffer.from('"')]);
          expect(inString.every((byte) => byte < 0x80)).toBe(true);
          expect(JSON.parse(inString.toString("latin1"))).toBe(json.safe);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("writes a failure's error right after ok, so Hermes's 500-character fallback rule sees it with the longest ids", async () => {
    // The contract's longest call and trace ids (256 characters each) and a 128-character page id.
    const longest = {
      ...envelopeFor(world, "mnote.page.get"),
      documentId: "d".repeat(128),
      toolCallId: "c".repeat(256),
      traceId: "t".repeat(256),
    };
    const refused = await routerCall(world.kernel, world.tokens.owner, "mnote.page.get", longest);
    expect(refused.ok).toBe(false);
    const inContractOrder = JSON.stringify(refused);
    // Without the reordering this refusal would read as a success to the fallback rule.
    expect(hermesFallbackDetectsFailure(inContractOrder)).toBe(false);
    const json = EnvelopeJson.of(refused);
    expect(hermesFallbackDetectsFailure(json.safe)).toBe(true);
    expect(hermesDetectsFailure(json.safe)).toBe(true);
    expect(Object.keys(JSON.parse(json.safe)).slice(0, 2)).toEqual(["ok", "error"]);
    expect(JSON.parse(json.safe)).toStrictEqual(JSON.parse(inContractOrder));
    // Over MCP in the Hermes form a refusal is structuredContent only, which Hermes's handler writes inside
    // {"result": …} (tools/mcp_tool.py): there too the error comes within the first 500 characters.
    const overMcp = hermesMcpHandlerResult(toResult(refused, "hermes", json));
    expect(hermesFallbackDetectsFailure(overMcp)).toBe(true);
    expect(hermesDetectsFailure(overMcp)).toBe(true);
  });

  it("writes a failure plainly (it must stay a failure to Hermes) and an envelope without a window whole", async () => {
    const denied = await routerCall(
      world.kernel,
      world.tokens.stranger,
      "mnote.page.get",
      envelopeFor(world, "mnote.page.get"),
    );
    expect(denied.ok).toBe(false);
    const json = EnvelopeJson.of(denied);
    expect(JSON.parse(json.safe)).toStrictEqual(JSON.parse(JSON.stringify(denied)));
    expect(json.safe).toBe(json.plain);
    expect(hermesDetectsFailure(json.safe)).toBe(true);
    const headOnly = await routerCall(
      world.kernel,
      world.tokens.owner,
      "mnote.page.get",
      envelopeFor(world, "mnote.page.get", { includeBlocks: false }),
    );
    expect(EnvelopeJson.of(headOnly).plain).toBe(JSON.stringify(headOnly));
    expect(JSON.parse(Buffer.concat(EnvelopeJson.of(headOnly).asciiBytes()).toString("latin1"))).toStrictEqual(
      JSON.parse(JSON.stringify(headOnly)),
    );
  });
});
