import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { allToolJsonSchemas, MODEL_ENVELOPE_FIELDS, TOOL_ERROR_HTTP_STATUS, TOOL_ERROR_CODES } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { resolveSettings, settingsFromEnv } from "./config";
import { hermesSchemaDocument, generateHermesSchemas } from "./hermes/generate-schemas";
import { hermesMcpConfig, installHermesPlugin } from "./hermes/install";
import { idempotencyKeyForCall } from "./idempotency";
import { envelopeFromModelArguments } from "./from-model-arguments";
import { RateLimiter } from "@mnote/process";
import { newTraceId, traceIdFromTraceparent } from "./trace";

describe("traceparent", () => {
  it("takes the 32-hex trace id of a valid header", () => {
    expect(traceIdFromTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736",
    );
    expect(traceIdFromTraceparent(["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"])).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736",
    );
    // A future version may append fields.
    expect(traceIdFromTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")).toBe(
      "4bf92f3577b34da6a3ce929d0e0e4736",
    );
  });
  it.each([
    undefined,
    "",
    "garbage",
    "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
    "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
    "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
  ])("rejects %j", (header) => expect(traceIdFromTraceparent(header)).toBeNull());
  it("makes W3C-shaped ids", () => expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/));
});

describe("rate limiter", () => {
  it("lets a burst through, then refills at the rate, per key", () => {
    let now = 0;
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take("a").allowed)).toEqual([true, true, true, false]);
    expect(limiter.take("b").allowed).toBe(true);
    const refused = limiter.take("a");
    expect(refused).toEqual({ allowed: false, retryAfterMs: 500 });
    now = 500;
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    now = 10_000;
    expect([1, 2, 3, 4].map(() => limiter.take("a").allowed)).toEqual([true, true, true, false]);
  });
  it("keeps its memory bounded", () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1 }, () => 0, 10);
    for (let i = 0; i < 100; i++) limiter.take(`k${i}`);
    expect((limiter as unknown as { buckets: Map<string, unknown> }).buckets.size).toBeLessThanOrEqual(10);
  });
});

describe("settings", () => {
  it("reads the environment; explicit options win", () => {
    const env = {
      MNOTE_BRIDGE_BODY_LIMIT: "1024",
      MNOTE_BRIDGE_RATE_LIMIT_RPS: "5",
      MNOTE_BRIDGE_RATE_LIMIT_BURST: "7",
      MNOTE_BRIDGE_CORS_ORIGINS: "http://a.example, http://b.example",
    };
    expect(settingsFromEnv(env)).toMatchObject({
      bodyLimit: 1024,
      rateLimit: { ratePerSecond: 5, burst: 7 },
      corsOrigins: ["http://a.example", "http://b.example"],
    });
    expect(resolveSettings({ bodyLimit: 10 }, env).bodyLimit).toBe(10);
    expect(resolveSettings({}, {}).bodyLimit).toBe(4 * 1024 * 1024);
    expect(resolveSettings({}, {}).rateLimit).toEqual({ ratePerSecond: 20, burst: 40 });
    expect(resolveSettings({}, { MNOTE_BRIDGE_RATE_LIMIT_RPS: "0" }).rateLimit).toBeNull();
    expect(resolveSettings({}, {}).corsOrigins).toEqual([]);
    expect(() => settingsFromEnv({ MNOTE_BRIDGE_BODY_LIMIT: "lots" })).toThrow(/MNOTE_BRIDGE_BODY_LIMIT/);
  });

  it("makes /mcp a protected resource only when the authorization server is named (decision 0027)", () => {
    expect(resolveSettings({}, {}).oauth).toBeNull();
    expect(settingsFromEnv({ MNOTE_BRIDGE_OAUTH_ISSUER: "https://panel.example.com/" }).oauth).toEqual({
      authorizationServer: "https://panel.example.com",
      resource: null,
    });
    expect(
      settingsFromEnv({
        MNOTE_BRIDGE_OAUTH_ISSUER: "https://panel.example.com",
        MNOTE_BRIDGE_MCP_URL: "https://bridge.example.com/mcp",
      }).oauth?.resource,
    ).toBe("https://bridge.example.com/mcp");
    expect(() => settingsFromEnv({ MNOTE_BRIDGE_MCP_URL: "https://bridge.example.com/mcp" })).toThrow(
      /MNOTE_BRIDGE_OAUTH_ISSUER/,
    );
    expect(() => settingsFromEnv({ MNOTE_BRIDGE_OAUTH_ISSUER: "ftp://x" })).toThrow(/MNOTE_BRIDGE_OAUTH_ISSUER/);
  });
});

describe("model arguments -> envelope", () => {
  const runtime = {
    actorId: "u1",
    capabilityScope: ["page.read" as const],
    sessionId: "s1",
    runId: "r1",
    toolCallId: "c1",
    traceId: "t1",
    idempotencyKey: "runtime_key",
  };
  const { idempotencyKey: _runtimeKey, ...runtimeIds } = runtime;
  it("moves MODEL_ENVELOPE_FIELDS to the envelope and the rest into args", () => {
    const envelope = envelopeFromModelArguments(
      "mnote_page_save",
      { workspaceId: "w", documentId: "d", content: [], mode: "append", dryRun: true, idempotencyKey: "k" },
      runtime,
    );
    expect(envelope).toEqual({
      toolName: "mnote.page.save",
      workspaceId: "w",
      documentId: "d",
      ...runtimeIds,
      idempotencyKey: "k",
      dryRun: true,
      args: { content: [], mode: "append" },
    });
    expect(MODEL_ENVELOPE_FIELDS).toEqual(["workspaceId", "documentId", "dryRun", "idempotencyKey"]);
  });
  it("names a page only when the model named one: a workspace tool's envelope has no documentId (issue 34)", () => {
    const envelope = envelopeFromModelArguments("mnote_workspace_search", { workspaceId: "w", query: "plan" }, runtime);
    expect(envelope).not.toHaveProperty("documentId");
    expect(envelope.args).toEqual({ query: "plan" });
    // A page tool left without one is passed on as it is, for the router to say it needs one.
    expect(envelopeFromModelArguments("mnote_page_get", { workspaceId: "w" }, runtime)).not.toHaveProperty(
      "documentId",
    );
  });
  it("gives a write dryRun false and the runtime's key when the model gave none, never one from the arguments", () => {
    const args = { workspaceId: "w", documentId: "d", title: "T" };
    const a = envelopeFromModelArguments("mnote.page.update_title", args, runtime);
    expect(a.dryRun).toBe(false);
    expect(a.idempotencyKey).toBe("runtime_key");
    expect(
      envelopeFromModelArguments("mnote.page.update_title", { ...args, idempotencyKey: null }, runtime).idempotencyKey,
    ).toBe("runtime_key");
    // Arguments too deep for any canonical form are passed on for the router to refuse.
    let deep: unknown = "bottom";
    for (let i = 0; i < 100_000; i++) deep = { nested: deep };
    expect(
      envelopeFromModelArguments("mnote.page.update_title", { ...args, title: deep }, runtime).idempotencyKey,
    ).toBe("runtime_key");
  });
  it("keys a call by the caller's ids, else freshly: the same arguments twice are two calls", () => {
    const fresh = [idempotencyKeyForCall({}), idempotencyKeyForCall({ caller: null })];
    expect(fresh[0]).not.toBe(fresh[1]);
    const call = { sessionId: "s", runId: "turn1", toolCallId: "call_1" };
    expect(idempotencyKeyForCall({ caller: call })).toBe(idempotencyKeyForCall({ caller: { ...call } }));
    // Hermes's own fallback call id repeats across turns for the same request: the turn tells them apart.
    expect(idempotencyKeyForCall({ caller: call })).not.toBe(
      idempotencyKeyForCall({ caller: { ...call, runId: "turn2" } }),
    );
    expect(idempotencyKeyForCall({ caller: call })).not.toBe(
      idempotencyKeyForCall({ caller: { ...call, sessionId: "s2" } }),
    );
    expect(idempotencyKeyForCall({ metaKey: "mine", caller: call })).toBe("mine");
    const long = "x".repeat(256);
    expect(
      idempotencyKeyForCall({ caller: { sessionId: long, runId: long, toolCallId: long } }).length,
    ).toBeLessThanOrEqual(200);
  });
  it("never turns a null dryRun into a real write", () => {
    const envelope = envelopeFromModelArguments(
      "mnote.page.update_title",
      { workspaceId: "w", documentId: "d", title: "T", dryRun: null },
      runtime,
    );
    expect(envelope.dryRun).toBeNull();
  });
  it("leaves reads without write fields", () => {
    const envelope = envelopeFromModelArguments("mnote_page_get", { workspaceId: "w", documentId: "d" }, runtime);
    expect(envelope).not.toHaveProperty("dryRun");
    expect(envelope).not.toHaveProperty("idempotencyKey");
  });
});

describe("Hermes plugin files", () => {
  const pluginDir = fileURLToPath(new URL("../hermes-plugin/mnote/", import.meta.url));

  it("generates tool_schemas.json from the contract", () => {
    const dir = mkdtempSync(join(tmpdir(), "mnote-schemas-"));
    try {
      const path = generateHermesSchemas(dir);
      const written = JSON.parse(readFileSync(path, "utf8"));
      expect(written).toEqual(hermesSchemaDocument());
      expect(written.modelEnvelopeFields).toEqual([...MODEL_ENVELOPE_FIELDS]);
      expect(written.tools.map((t: { name: string }) => t.name)).toEqual(
        allToolJsonSchemas().map((t) => t.providerName),
      );
      for (const [i, tool] of allToolJsonSchemas().entries()) {
        expect(written.tools[i]).toEqual({
          name: tool.providerName,
          canonicalName: tool.name,
          kind: tool.kind,
          description: tool.description,
          parameters: tool.parameters,
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("plugin.yaml declares the contract's provider names and the required env", () => {
    const manifest = readFileSync(join(pluginDir, "plugin.yaml"), "utf8");
    expect(manifest).toMatch(/^name: mnote$/m);
    expect([...manifest.matchAll(/^ {2}- (mnote_\w+)$/gm)].map((m) => m[1])).toEqual(
      allToolJsonSchemas().map((t) => t.providerName),
    );
    // The rich form Hermes prompts with (hermes_cli/plugins_cmd.py _prompt_plugin_env_vars).
    expect(manifest).toMatch(
      /requires_env:\n(?:#.*\n)*? {2}- name: MNOTE_BRIDGE_URL\n {4}description: .+\n {2}- name: MNOTE_TOKEN\n {4}description: .+\n {4}secret: true\n/,
    );
  });

  it("installs into --dir and refuses to overwrite a directory that is not the plugin", () => {
    const root = mkdtempSync(join(tmpdir(), "mnote-install-"));
    try {
      const { dir } = installHermesPlugin({ dir: join(root, "plugins", "mnote") });
      expect(readdirSync(dir).sort()).toEqual([
        "__init__.py",
        "client.py",
        "mcp_ids.py",
        "plugin.yaml",
        "settings.py",
        "tool_schemas.json",
      ]);
      installHermesPlugin({ dir }); // replacing our own copy is fine
      const foreign = join(root, "elsewhere");
      mkdirSync(foreign);
      writeFileSync(join(foreign, "keep.txt"), "mine");
      expect(() => installHermesPlugin({ dir: foreign })).toThrow(/refusing/);
      expect(readFileSync(join(foreign, "keep.txt"), "utf8")).toBe("mine");
      expect(installHermesPlugin({ hermesHome: join(root, "hh") }).dir).toBe(join(root, "hh", "plugins", "mnote"));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("prints an mcp_servers block with the HTTP url, a ${MNOTE_TOKEN} header and the stdio alternative", () => {
    const config = hermesMcpConfig({ url: "http://127.0.0.1:4100/mcp", databaseUrl: "file:/data/mnote.db" });
    expect(config).toContain('mcp_servers:\n  mnote:\n    url: "http://127.0.0.1:4100/mcp"');
    expect(config).toContain('Authorization: "Bearer ${MNOTE_TOKEN}"');
    expect(config).toMatch(/#\s+args: \[".*mnote-bridge\.mjs", "mcp", "--stdio"\]/);
    expect(config).toContain('#       MNOTE_DATABASE_URL: "file:/data/mnote.db"');
    // Hermes's result form: by header for the URL server, by environment for stdio.
    expect(config).toContain('    headers:\n      Authorization: "Bearer ${MNOTE_TOKEN}"\n      # Results');
    expect(config).toContain('      X-Mnote-Result-Form: "hermes"');
    expect(config).toContain('#       MNOTE_RESULT_FORM: "hermes"');
  });
});

describe("contract status table", () => {
  it("has a status for every error code, and the README documents each", () => {
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
    for (const code of TOOL_ERROR_CODES) {
      expect(TOOL_ERROR_HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
      expect(readme).toMatch(new RegExp(`\\| \`${code}\` \\| ${TOOL_ERROR_HTTP_STATUS[code]} \\|`));
    }
  });
});
