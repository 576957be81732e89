import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { AnswerWriter } from "./answer-json";

const json = fc.jsonValue();
const record = fc.dictionary(fc.string(), json);
const id = fc.oneof(fc.integer(), fc.string());

describe("AnswerWriter", () => {
  it("writes a kept structuredContent text as the same JSON value JSON.stringify of the message gives", () => {
    fc.assert(
      fc.property(
        id,
        record,
        fc.option(record, { nil: undefined }),
        fc.boolean(),
        (requestId, structured, meta, isError) => {
          const text = JSON.stringify(structured);
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
          writer.keep(requestId, text, structured);
          const written = writer.serialize(message);
          expect(JSON.parse(written)).toEqual(JSON.parse(JSON.stringify(message)));
          // Used once: a later answer under the same id is serialized plainly.
          expect(writer.serialize(message)).toBe(JSON.stringify(message));
        },
      ),
    );
  });

  it("splices the kept text itself, not a second serialization of the value", () => {
    const writer = new AnswerWriter();
    const value = { ok: true, error: null };
    writer.keep(7, '{"ok":true,"\\u0065rror":null}', value);
    const written = writer.serialize(
      {
        jsonrpc: "2.0",
        id: 9,
        result: { content: [], structuredContent: { ...value } },
      },
      7,
    );
    expect(written).toBe(
      '{"jsonrpc":"2.0","id":9,"result":{"content":[],"structuredContent":{"ok":true,"\\u0065rror":null}}}',
    );
  });

  it("serializes plainly what it kept nothing for, an error answer, and notifications", () => {
    const writer = new AnswerWriter();
    const notification = { jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage;
    expect(writer.serialize(notification)).toBe(JSON.stringify(notification));
    writer.keep(1, '{"a":1}', { a: 1 });
    const error = {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "Invalid tools/call result" },
    } as JSONRPCMessage;
    expect(writer.serialize(error)).toBe(JSON.stringify(error));
    const plain = { jsonrpc: "2.0", id: 1, result: { content: [], structuredContent: { a: 2 } } } as JSONRPCMessage;
    // The error answer used up what was kept for id 1.
    expect(writer.serialize(plain)).toBe(JSON.stringify(plain));
    // Two requests under one id at once: the text kept last is not the value of the first answer, so it is not used.
    writer.keep(1, '{"a":3}', { a: 3 });
    expect(writer.serialize(plain)).toBe(JSON.stringify(plain));
  });
});
