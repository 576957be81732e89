import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/server";
import { EnvelopeJson } from "../envelope-json";
import { AnswerWriter } from "./answer-json";

/** What the server does: the result made of the envelope's JSON, handed to the writer with it. */
function keep(writer: AnswerWriter, id: string | number, value: object, result: CallToolResult) {
  writer.keep(id, EnvelopeJson.of(value as never), result);
}

// Any text, beyond Latin-1 and lone surrogates included: the answer is written as UTF-8 bytes.
const json = fc.jsonValue({ stringUnit: "binary" });
const record = fc.dictionary(fc.string({ unit: "binary" }), json);
const id = fc.oneof(fc.integer(), fc.string());

describe("AnswerWriter", () => {
  it("writes a kept structuredContent text as the same JSON value JSON.stringify of the message gives, in ASCII", () => {
    fc.assert(
      fc.property(
        id,
        record,
        fc.option(record, { nil: undefined }),
        fc.boolean(),
        (requestId, structured, meta, isError) => {
          const text = EnvelopeJson.of(structured as never).safe;
          const message = {
            jsonrpc: "2.0",
            id: requestId,
            result: {
              ...(meta ? { _meta: meta } : {}),
              content: [{ type: "text", text }],
              structuredContent: structured,
              isError,
            },
          } as JSONRPCMessage;
          const writer = new AnswerWriter();
          keep(writer, requestId, structured, (message as unknown as { result: CallToolResult }).result);
          const bytes = writer.encode(message);
          // ASCII: every character beyond it written as its \u escape.
          expect(bytes.every((byte) => byte < 0x80)).toBe(true);
          const written = bytes.toString("utf8");
          expect(JSON.parse(written)).toEqual(JSON.parse(JSON.stringify(message)));
          // Used once: a later answer under the same id is serialized plainly.
          expect(JSON.parse(writer.encode(message).toString("utf8"))).toEqual(JSON.parse(JSON.stringify(message)));
        },
      ),
    );
  });

  it("with a line end: the same bytes and the line end, one line (stdio writes each answer at once)", () => {
    fc.assert(
      fc.property(id, record, fc.boolean(), (requestId, structured, kept) => {
        const text = EnvelopeJson.of(structured as never).safe;
        const message = {
          jsonrpc: "2.0",
          id: requestId,
          result: { content: [{ type: "text", text }], structuredContent: structured },
        } as JSONRPCMessage;
        const result = (message as unknown as { result: CallToolResult }).result;
        const [withEnd, without] = [new AnswerWriter(), new AnswerWriter()];
        if (kept) {
          keep(withEnd, requestId, structured, result);
          keep(without, requestId, structured, result);
        }
        const line = withEnd.encode(message, undefined, "\n");
        expect(line.equals(Buffer.concat([without.encode(message), Buffer.from("\n")]))).toBe(true);
        expect(line.indexOf(0x0a)).toBe(line.length - 1);
      }),
    );
  });

  it("splices the envelope's own (Hermes-safe) JSON, not a second serialization of the value", () => {
    const writer = new AnswerWriter();
    const value = { ok: true, error: null };
    keep(writer, 7, value, { content: [], structuredContent: value });
    const written = writer
      .encode(
        {
          jsonrpc: "2.0",
          id: 9,
          result: { content: [], structuredContent: { ...value } },
        },
        7,
      )
      .toString("utf8");
    expect(written).toBe(
      '{"jsonrpc":"2.0","id":9,"result":{"content":[],"structuredContent":{"ok":true,"\\u0065rror":null}}}',
    );
  });

  it("splices both copies whichever comes first in the SDK's copy of the result", () => {
    // The SDK hands the writer its validated copy of the result, keys in its schema's order, not the handler's: the
    // envelope's copy before the text must be spliced too, not written by a second serialization (the structured
    // copy then reads "error" plainly instead of the envelope's own Hermes-safe JSON).
    const writer = new AnswerWriter();
    const value = { ok: true, error: null };
    const text = EnvelopeJson.of(value as never).safe;
    keep(writer, 7, value, { content: [{ type: "text", text }], structuredContent: value });
    const written = writer
      .encode({ jsonrpc: "2.0", id: 7, result: { structuredContent: { ...value }, content: [{ type: "text", text }] } })
      .toString("utf8");
    expect(written).toBe(
      '{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"ok":true,"\\u0065rror":null},' +
        '"content":[{"type":"text","text":"{\\"ok\\":true,\\"\\\\u0065rror\\":null}"}]}}',
    );
  });

  it("writes characters beyond ASCII, in the text and in structuredContent, as \\u escapes of the same characters", () => {
    const writer = new AnswerWriter();
    const value = { summary: "Grüße…", emoji: "😀" };
    const text = JSON.stringify(value);
    keep(writer, 3, value, { content: [{ type: "text", text }], structuredContent: value });
    const written = writer
      .encode({ jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text }], structuredContent: value } })
      .toString("latin1");
    expect(written).toBe(
      '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\\"summary\\":\\"Gr\\u00fc\\u00dfe\\u2026\\",\\"emoji\\":\\"\\ud83d\\ude00\\"}"}],' +
        '"structuredContent":{"summary":"Gr\\u00fc\\u00dfe\\u2026","emoji":"\\ud83d\\ude00"}}}',
    );
    expect(JSON.parse(written).result.structuredContent).toEqual(value);
    expect(JSON.parse(JSON.parse(written).result.content[0].text)).toEqual(value);
  });

  it("serializes plainly what it kept nothing for, an error answer, and notifications", () => {
    const writer = new AnswerWriter();
    const notification = { jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage;
    expect(writer.encode(notification).toString("utf8")).toBe(JSON.stringify(notification));
    keep(writer, 1, { a: 1 }, { content: [], structuredContent: { a: 1 } });
    const error = {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Invalid tools/call result" },
    } as JSONRPCMessage;
    expect(writer.encode(error).toString("utf8")).toBe(JSON.stringify(error));
    const plain = { jsonrpc: "2.0", id: 1, result: { content: [], structuredContent: { a: 2 } } } as JSONRPCMessage;
    // The error answer used up what was kept for id 1.
    expect(writer.encode(plain).toString("utf8")).toBe(JSON.stringify(plain));
    // Two requests under one id at once: the text kept last is not the value of the first answer, so it is not used.
    keep(writer, 1, { a: 3 }, { content: [], structuredContent: { a: 3 } });
    expect(writer.encode(plain).toString("utf8")).toBe(JSON.stringify(plain));
  });
});
