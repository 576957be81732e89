import { isWorkspaceTool, TOOL_NAMES, toProviderName, type ToolName, TOOLS } from "@mnote/contract";
import type { RunningBridge } from "@mnote/hermes-bridge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businessSnapshot, createWorld, expectContractFailure, postTool, startTestBridge, type World } from "./support";

/**
 * Fuzz: hostile envelopes against a real bridge, over its HTTP tool endpoint (raw bodies)
 * and over MCP (the SDK client, hostile tool arguments). Whatever arrives: never a 5xx,
 * never a crash, always the contract's failure envelope, and never a write.
 *
 * Every generated call is invalid by construction (at least one breaking mutation), so
 * "no write" is the property and not luck. Replay a failure with the seed fast-check prints.
 */

let world: World;
let bridge: RunningBridge;
let mcp: Client;
let before: Awaited<ReturnType<typeof businessSnapshot>>;

beforeAll(async () => {
  world = await createWorld();
  bridge = await startTestBridge(world.kernel);
  mcp = new Client({ name: "reliability-fuzz", version: "0.0.0" });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${world.tokens.owner}` } },
    }),
  );
  before = await businessSnapshot(world.kernel);
});
afterAll(async () => {
  await mcp?.close();
  await bridge?.close();
  await world?.close();
});

// ---------- hostile values ----------

const MB = 1024 * 1024;
const CONTROL = [
  "\u0000",
  "\u0001",
  "\u0008",
  "\u001b",
  "\u001f",
  "\u007f",
  "\r\n",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\u202e",
  "\ud800",
  "\udfff",
];
const controlString = fc
  .array(fc.oneof(fc.constantFrom(...CONTROL), fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 12 })
  .map((parts) => parts.join(""));
const unicodeString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  controlString,
);
/** 1 MiB of UTF-8 each. NULs are 6 bytes each once JSON-escaped: that one is for the HTTP endpoint (over its 4 MiB limit: 413). */
const megabyteString = fc
  .constantFrom("x", "é", "😀", "\u2028")
  .map((unit) => unit.repeat(Math.ceil(MB / Buffer.byteLength(unit))));
const megabyteNuls = fc.constant("\u0000".repeat(MB));
/** Nested arrays or objects, as deep as the client can still serialize (V8's JSON.stringify stops near 4,100). */
const deepNesting = (maxDepth: number) =>
  fc.tuple(fc.integer({ min: 50, max: maxDepth }), fc.boolean()).map(([depth, arrays]) => {
    let value: unknown = "bottom";
    for (let i = 0; i < depth; i++) value = arrays ? [value] : { nested: value };
    return value;
  });
/** Past the 20,000-block limit, and at most ~1.2 MB of JSON, so three of them still fit the 4 MiB body limit. */
const hugeArray = fc.oneof(
  fc
    .integer({ min: 20_001, max: 40_000 })
    .map((n) => Array.from({ length: n }, () => ({ type: "paragraph", text: "" }))),
  fc.integer({ min: 100_000, max: 400_000 }).map((n) => new Array<number>(n).fill(0)),
);
/** Own `__proto__` / `constructor` keys, as JSON.parse creates them (a literal would set the prototype instead). */
const protoObject = fc
  .constantFrom(
    '{"__proto__":{"isAdmin":true,"ok":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"__proto__":null,"toString":"x","valueOf":1,"hasOwnProperty":false}',
  )
  .map((text) => JSON.parse(text) as Record<string, unknown>);
const notAString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  protoObject,
);
const anyHostile = fc.oneof(notAString, unicodeString, megabyteString, deepNesting(3_500), hugeArray, protoObject);
const anyHostileOverHttp = fc.oneof(anyHostile, megabyteNuls);
const dangerousKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", ""),
  unicodeString,
);

const ENVELOPE_FIELDS = [
  "toolName",
  "workspaceId",
  "documentId",
  "actorId",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
  "capabilityScope",
  "args",
];
const ID_FIELDS = ["workspaceId", "documentId", "actorId", "sessionId", "runId", "toolCallId", "traceId"];

const nonEmptyArray = (value: unknown) => Array.isArray(value) && value.length > 0;

/** Set an own property, whatever its name (a plain assignment to `__proto__` would change the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Mutation = (envelope: Record<string, unknown>, tool: ToolName) => void;

/** A mutation that prints as what it does in a counterexample (values cut short). */
function named<F extends (...args: never[]) => void>(description: string, fn: F): F {
  return Object.assign(fn, { [fc.toStringMethod]: () => description });
}
const show = (value: unknown) => {
  const text = (() => {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return "<unserializable: too deep>";
    }
  })();
  return text.length > 60 ? `${text.slice(0, 60)}…(${text.length} chars)` : text;
};

/** Mutations that make any envelope invalid. Each generated call applies at least one. */
const breaking: fc.Arbitrary<Mutation> = fc.oneof(
  // a field of the wrong type
  fc.tuple(fc.constantFrom(...ENVELOPE_FIELDS, "dryRun", "idempotencyKey"), notAString).map(([field, value]) =>
    named<Mutation>(`${field} of the wrong type: ${show(value)}`, (e) => {
      const wrong =
        field === "dryRun" && typeof value === "boolean"
          ? String(value)
          : field === "args" && value !== null && typeof value === "object" && !Array.isArray(value)
            ? [value]
            : field === "capabilityScope" && Array.isArray(value)
              ? [...value, 1]
              : value;
      setOwn(e, field, wrong);
    }),
  ),
  // a required field missing; a workspace tool's envelope names no page, so for it a page named is the break
  fc.constantFrom(...ENVELOPE_FIELDS).map((field) =>
    named<Mutation>(`${field} missing`, (e, tool) => {
      if (field === "documentId" && isWorkspaceTool(tool)) e.documentId = world.ids.page;
      else delete e[field];
    }),
  ),
  // an unknown (or prototype-named) key at the top or in args
  fc.tuple(dangerousKey, anyHostileOverHttp, fc.boolean()).map(([key, value, inArgs]) =>
    named<Mutation>(`unknown key ${show(key)} ${inArgs ? "in args" : "at the top"}: ${show(value)}`, (e) => {
      const known = new Set([...ENVELOPE_FIELDS, "dryRun", "idempotencyKey"]);
      const name = known.has(key) ? `${key}_x` : key;
      if (inArgs && e.args && typeof e.args === "object") setOwn(e.args as Record<string, unknown>, name || "_", value);
      else setOwn(e, name || "_", value);
    }),
  ),
  // args replaced by something hostile that is not the tool's args
  fc
    .oneof(fc.constant([]), fc.constant(null), deepNesting(3_500), hugeArray, megabyteString, fc.integer())
    .map((value) => named<Mutation>(`args replaced by ${show(value)}`, (e) => void (e.args = value))),
  // an id or trace field past its limit, with control characters, or a megabyte long
  fc
    .tuple(
      fc.constantFrom(...ID_FIELDS),
      fc.oneof(
        megabyteString,
        fc.constant("i".repeat(300)),
        controlString.map((s) => `a${s}\u0000`),
      ),
    )
    .map(([field, value]) => named<Mutation>(`${field} = ${show(value)}`, (e) => void (e[field] = value))),
  // the tool's own args broken: a megabyte title, text or summary, a huge content array, deep content, wrong types
  fc.oneof(megabyteString, hugeArray, deepNesting(3_500), notAString).map((value) =>
    named<Mutation>(`the tool's own argument set to ${show(value)}`, (e, tool) => {
      const args = { ...(e.args as Record<string, unknown>) };
      // An empty content array is a valid save (a page emptied), so an empty array goes in as a block's text.
      if (tool === "mnote.page.save")
        args.content = nonEmptyArray(value) ? value : [{ type: "paragraph", text: value }];
      else if (tool === "mnote.page.update_title") args.title = typeof value === "string" ? value : [value];
      else if (tool === "mnote.artifact.create_summary") args.summary = typeof value === "string" ? value : [value];
      else if (tool === "mnote.artifact.create_ai_note") args.content = typeof value === "string" ? value : [value];
      else if (tool === "mnote.page.update_options")
        args.options = { wideLayout: typeof value === "boolean" ? String(value) : value };
      else args.includeBlocks = typeof value === "boolean" ? String(value) : value;
      e.args = args;
    }),
  ),
  // capability scope: unknown capability, empty, or too many
  fc
    .constantFrom<unknown[]>(
      [],
      ["page.admin"],
      ["page.read", "page.read", "page.write", "artifact.write"],
      ["PAGE.READ"],
    )
    .map((scope) => named<Mutation>(`capabilityScope = ${show(scope)}`, (e) => void (e.capabilityScope = scope))),
);

/** Mutations a valid envelope survives (unicode in trace fields): noise on top of a breaking one. */
const noise: fc.Arbitrary<Mutation> = fc
  .tuple(
    fc.constantFrom("sessionId", "runId", "toolCallId", "traceId"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }),
  )
  .map(([field, value]) => named<Mutation>(`noise: ${field} = ${show(value)}`, (e) => void (e[field] = value)));

const toolArb = fc.constantFrom(...TOOL_NAMES);
const unknownToolName = fc.oneof(
  fc.constantFrom(
    "mnote.page.delete",
    "mnote_page_GET",
    "mnote.page.get ",
    "__proto__",
    "constructor",
    "toString",
    "...",
    "mnote.page",
    "%00",
    "😀",
  ),
  // Not "." or "..": a URL parser resolves those path segments (even as %2E) before the request leaves the client.
  fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 60 })
    .filter(
      (s) =>
        s !== "." &&
        s !== ".." &&
        !(TOOL_NAMES as string[]).includes(s) &&
        !(TOOL_NAMES.map(toProviderName) as string[]).includes(s),
    ),
  fc.constant("n".repeat(1000)),
);

/** A hostile envelope: a valid one for `tool`, maybe noise, then at least one breaking mutation (last, so noise cannot repair it). */
const hostileEnvelope = fc.record({
  tool: toolArb,
  mutations: fc.array(breaking, { minLength: 1, maxLength: 3 }),
  extra: fc.array(noise, { maxLength: 2 }),
});

// ---------- properties ----------

async function expectNothingWritten(what: () => string = () => "") {
  const now = await businessSnapshot(world.kernel);
  const changed = Object.keys(now).filter(
    (table) => JSON.stringify(now[table as keyof typeof now]) !== JSON.stringify(before[table as keyof typeof before]),
  );
  // Say which input wrote, before fast-check shrinks (every later run sees the same changed tables).
  if (changed.length) console.error(`WRITE by ${what()}: tables changed: ${changed.join(", ")}`);
  expect(now).toEqual(before);
}

describe("fuzz: HTTP tool endpoint", () => {
  it("hostile envelopes: a contract failure envelope with its status, never a 5xx, never a write", async () => {
    await fc.assert(
      fc.asyncProperty(hostileEnvelope, fc.boolean(), async ({ tool, mutations, extra }, providerName) => {
        const envelope = world.envelope(tool);
        for (const mutate of [...extra, ...mutations]) mutate(envelope, tool);
        const answer = await postTool(
          bridge,
          encodeURIComponent(providerName ? toProviderName(tool) : tool),
          JSON.stringify(envelope),
          {
            authorization: `Bearer ${world.tokens.owner}`,
          },
        );
        expect(answer.status).toBeLessThan(500);
        expectContractFailure(answer.json, answer.status);
        await expectNothingWritten(() => `${tool} ${[...extra, ...mutations].map(String).join(" + ")}`);
      }),
      { numRuns: 150 },
    );
  });

  it("unknown tool names, valid or hostile bodies: mnote_tool_not_found or invalid input, never a write", async () => {
    await fc.assert(
      fc.asyncProperty(unknownToolName, toolArb, fc.boolean(), async (name, tool, raw) => {
        // Raw: the name as it is in the path (may be malformed percent-encoding); otherwise encoded.
        const path = raw ? name.replace(/[/?#\s]/g, "_") : encodeURIComponent(name);
        const envelope = world.envelope(tool, { toolName: name });
        const answer = await postTool(bridge, path, envelope, { authorization: `Bearer ${world.tokens.owner}` });
        expect(answer.status).toBeLessThan(500);
        if (answer.status === 404 || answer.status === 422) expectContractFailure(answer.json, answer.status);
        else expect.fail(`unexpected status ${answer.status}: ${answer.text.slice(0, 200)}`);
        await expectNothingWritten();
      }),
      { numRuns: 60 },
    );
  });

  it("raw bodies that are not an envelope (bytes, text, truncated or deep JSON, wrong content type): invalid input", async () => {
    const deepText = fc.integer({ min: 1_000, max: 300_000 }).map((d) => "[".repeat(d) + "]".repeat(d));
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 2_000 }),
      fc.string({ unit: "binary", maxLength: 500 }),
      fc
        .jsonValue()
        .filter((v) => v === null || typeof v !== "object" || Array.isArray(v))
        .map((v) => JSON.stringify(v)),
      fc.constantFrom(
        "",
        "{",
        '{"toolName":',
        "null",
        "[]",
        '"envelope"',
        "{}",
        '{"args":{}}',
        "\ufeff{}",
        "NaN",
        "{'a':1}",
      ),
      deepText,
      fc.integer({ min: 1, max: 3_000 }).map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`),
    );
    const contentType = fc.constantFrom<string | null>(
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "application/x-www-form-urlencoded",
      null,
    );
    await fc.assert(
      fc.asyncProperty(toolArb, body, contentType, async (tool, payload, type) => {
        const answer = await postTool(bridge, tool, typeof payload === "string" ? payload : payload, {
          authorization: `Bearer ${world.tokens.owner}`,
          contentType: type,
        });
        expect(answer.status).toBeLessThan(500);
        expectContractFailure(answer.json, answer.status);
        await expectNothingWritten();
      }),
      { numRuns: 120 },
    );
  });

  it("a body over the limit is refused unread: mnote_tool_payload_too_large (413)", async () => {
    const answer = await postTool(bridge, "mnote.page.save", `{"args":"${"x".repeat(5 * MB)}"}`, {
      authorization: `Bearer ${world.tokens.owner}`,
    });
    expect(answer.status).toBe(413);
    expect(expectContractFailure(answer.json, 413).error?.code).toBe("mnote_tool_payload_too_large");
    await expectNothingWritten();
  });
});

describe("fuzz: MCP Streamable HTTP (SDK client, tools/call)", () => {
  /** The model's flat arguments for a valid call, then broken. */
  const modelArguments = (tool: ToolName): Record<string, unknown> => {
    const envelope = world.envelope(tool);
    return {
      workspaceId: envelope.workspaceId,
      documentId: envelope.documentId,
      ...(envelope.args as Record<string, unknown>),
      ...(TOOLS[tool].kind === "write" ? { dryRun: false } : {}),
    };
  };
  const breakingArgument = fc.oneof(
    fc
      .tuple(fc.constantFrom("workspaceId", "documentId", "dryRun", "idempotencyKey"), notAString)
      .map(([field, value]) =>
        named(`${field} of the wrong type: ${show(value)}`, (a: Record<string, unknown>) => {
          // The bridge fills a null dryRun / idempotencyKey like a missing one (dryRun false, a derived key): not breaking.
          const nullable = field === "dryRun" || field === "idempotencyKey";
          setOwn(
            a,
            field,
            field === "dryRun" && typeof value === "boolean" ? String(value) : nullable && value === null ? 0 : value,
          );
        }),
      ),
    fc.constantFrom("workspaceId", "documentId").map((field) =>
      named(`${field} missing`, (a: Record<string, unknown>, tool: ToolName) => {
        // A workspace tool names no page (issue 34): leaving documentId out is its valid call, naming one breaks it.
        if (field === "documentId" && isWorkspaceTool(tool)) a.documentId = world.ids.page;
        else delete a[field];
      }),
    ),
    // Not `__proto__`: the SDK's request parsing drops that key before the bridge sees it (pinned by its own test below).
    fc
      .tuple(
        dangerousKey.filter((k) => k !== "__proto__"),
        anyHostile,
      )
      .map(([key, value]) =>
        named(`unknown argument ${show(key)}: ${show(value)}`, (a: Record<string, unknown>) => {
          const name = [
            "workspaceId",
            "documentId",
            "dryRun",
            "idempotencyKey",
            "content",
            "mode",
            "title",
            "summary",
            "options",
            "baseRevision",
            "includeBody",
            "includeOptions",
            "includeBlocks",
          ].includes(key)
            ? `${key}_x`
            : key;
          setOwn(a, name || "_", value);
        }),
      ),
    fc
      .tuple(
        fc.constantFrom("workspaceId", "documentId", "idempotencyKey"),
        fc.oneof(
          megabyteString,
          controlString.map((s) => `a${s}\u0000`),
          fc.constant("i".repeat(300)),
        ),
      )
      .map(([field, value]) =>
        named(`${field} = ${show(value)}`, (a: Record<string, unknown>) => void (a[field] = value)),
      ),
    fc.oneof(megabyteString, hugeArray, deepNesting(3_900), notAString).map((value) =>
      named(`the tool's own argument set to ${show(value)}`, (a: Record<string, unknown>) => {
        // the tool's own argument: every tool has one of these, all strictly typed
        for (const key of ["content", "title", "summary", "options", "includeBlocks"])
          if (key in a || key === "includeBlocks") {
            // As above: an empty content array would be a valid save, so it goes in as a block's text.
            // A boolean is a valid includeBlocks (found by a seed that set it to false): it goes in as a string.
            a[key] =
              typeof value === "boolean" && key === "includeBlocks"
                ? String(value)
                : typeof value === "string" && key !== "content"
                  ? [value]
                  : key === "content" && !nonEmptyArray(value)
                    ? [{ type: "paragraph", text: value }]
                    : value;
            return;
          }
      }),
    ),
  );
  const unknownTool = unknownToolName.filter((name) => name.length <= 200);

  it("hostile tool arguments: the contract's failure envelope as a result the model reads (isError false, decision 0008), never a JSON-RPC error, never a write", async () => {
    await fc.assert(
      fc.asyncProperty(toolArb, fc.array(breakingArgument, { minLength: 1, maxLength: 3 }), async (tool, mutations) => {
        const args = modelArguments(tool);
        for (const mutate of mutations) mutate(args, tool);
        const result = await mcp.callTool({ name: toProviderName(tool), arguments: args });
        const what = () =>
          `${tool} ${mutations.map(String).join(" + ")} → ${JSON.stringify(result.structuredContent).slice(0, 300)}`;
        await expectNothingWritten(what);
        // A refusal is an answer, not a tool error: Hermes locks a server out after three tool errors in a row.
        expect(result.isError, what()).toBe(false);
        expectContractFailure(result.structuredContent);
        expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(result.structuredContent);
      }),
      { numRuns: 120 },
    );
  });

  it("arguments nested 3,500 deep on every write tool: the contract's failure envelope, not a JSON-RPC stack overflow", async () => {
    // Found by the property above: the bridge derived an idempotency key with a recursive canonical JSON before the
    // router saw the call, and the stack overflow failed the MCP request (-32603) instead of answering an envelope.
    let deep: unknown = "bottom";
    for (let i = 0; i < 3_500; i++) deep = { nested: deep };
    for (const tool of TOOL_NAMES.filter((name) => TOOLS[name].kind === "write")) {
      const result = await mcp.callTool({ name: toProviderName(tool), arguments: { ...modelArguments(tool), deep } });
      expect(result.isError).toBe(false);
      expect(expectContractFailure(result.structuredContent).error?.code).toBe("mnote_tool_invalid_input");
    }
    await expectNothingWritten();
  });

  it("a `__proto__` argument is dropped by the MCP SDK's request parsing: the call runs as without it, no prototype pollution", async () => {
    // Over HTTP the same key is an unknown field and refused; over MCP the SDK's zod parse of tools/call drops it
    // (assigning `__proto__` on the copy sets no own key), so the bridge never sees it. Found by the property above.
    const plain = modelArguments("mnote.page.get");
    const hostile = modelArguments("mnote.page.get");
    setOwn(hostile, "__proto__", { includeBlocks: false, isAdmin: true, workspaceId: world.ids.otherWs });
    const [a, b] = [
      await mcp.callTool({ name: "mnote_page_get", arguments: plain }),
      await mcp.callTool({ name: "mnote_page_get", arguments: hostile }),
    ];
    expect(b.isError).toBe(false);
    const strip = (r: typeof a) => ({
      ...(r.structuredContent as Record<string, unknown>),
      toolCallId: null,
      traceId: null,
    });
    expect(strip(b)).toEqual(strip(a));
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("includeBlocks");
    await expectNothingWritten();
    // The same key over the HTTP endpoint is an unknown field: refused.
    const envelope = world.envelope("mnote.page.get");
    setOwn(envelope.args as Record<string, unknown>, "__proto__", { includeBlocks: false });
    const http = await postTool(bridge, "mnote.page.get", JSON.stringify(envelope), {
      authorization: `Bearer ${world.tokens.owner}`,
    });
    expect(expectContractFailure(http.json, http.status).error?.message).toContain("__proto__");
  });

  it("a request over the body limit: HTTP 413 from /mcp (no tool call to answer), nothing written, the session still works", async () => {
    const args = { ...modelArguments("mnote.page.save"), content: [{ type: "paragraph", text: "\u0000".repeat(MB) }] };
    const error = await mcp.callTool({ name: "mnote_page_save", arguments: args }).then(
      () => null,
      (e: unknown) => e as { code?: number },
    );
    expect(error?.code).toBe(413);
    await expectNothingWritten();
    const read = await mcp.callTool({ name: "mnote_page_get", arguments: modelArguments("mnote.page.get") });
    expect(read.isError).toBe(false);
  });

  it("unknown tool names: mnote_tool_not_found, never a write", async () => {
    await fc.assert(
      fc.asyncProperty(unknownTool, toolArb, async (name, tool) => {
        const result = await mcp.callTool({ name, arguments: modelArguments(tool) });
        expect(result.isError).toBe(false);
        expect(expectContractFailure(result.structuredContent).error?.code).toBe("mnote_tool_not_found");
        await expectNothingWritten();
      }),
      { numRuns: 40 },
    );
  });
});

describe("fuzz: the bridge is still up", () => {
  it("answers /healthz and a valid read after everything above", async () => {
    const health = await fetch(`${bridge.url}/healthz`);
    expect(health.status).toBe(200);
    const read = await postTool(bridge, "mnote.page.get", world.envelope("mnote.page.get"), {
      authorization: `Bearer ${world.tokens.owner}`,
    });
    expect(read.status).toBe(200);
    expect((read.json as { ok: boolean }).ok).toBe(true);
    await expectNothingWritten();
  });
});
