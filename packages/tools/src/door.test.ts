import { openSqliteDriver, SqlKernel } from "@mnote/kernel";
import { TOOL_NAMES } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { doorRefusal } from "./context";
import { expectFailure, expectOk, expectOnlyAuditGrew, snapshot, useWorlds, WRITE_TOOLS } from "./test-contract";
import { SAMPLE_ARGS } from "./test-support";

/**
 * Decision 0012: a token is used only at its holder's door. The panel serves person tokens
 * (for every procedure, `mnote.*` included); the agent doors (bridge, MCP, CLI) serve agent
 * tokens. Refused calls write nothing but their audit record.
 */
describe("doors", () => {
  const world = useWorlds(() => SqlKernel.open(openSqliteDriver(":memory:")));

  it("the rule: person ↔ panel, agent ↔ agent door", () => {
    expect(doorRefusal("panel", "person")).toBeNull();
    expect(doorRefusal("agent", "agent")).toBeNull();
    expect(doorRefusal("panel", "agent")).toMatch(/panel is for people/);
    expect(doorRefusal("agent", "person")).toMatch(/person tokens are for the panel.*--holder agent/);
  });

  it.each(TOOL_NAMES)("%s: an agent token at the panel is refused, nothing written", async (tool) => {
    const w = await world();
    const before = await snapshot(w);
    const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool]), w.tokens.ownerAgent, undefined, "panel");
    expectFailure(out, "mnote_tool_permission_denied", /panel is for people/);
    const [record] = await expectOnlyAuditGrew(w, before);
    // The refusal is recorded under the token that was refused, not under any claim.
    expect(record!.identity).toMatchObject({ holder: "agent", actorId: w.ids.owner, toolName: tool });
  });

  it.each(TOOL_NAMES)("%s: a person token at an agent door is refused, nothing written", async (tool) => {
    const w = await world();
    const before = await snapshot(w);
    const out = await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool]), w.tokens.owner, undefined, "agent");
    expectFailure(out, "mnote_tool_permission_denied", /person tokens are for the panel/);
    await expectOnlyAuditGrew(w, before);
  });

  it.each(WRITE_TOOLS)("%s: each holder at its own door still writes", async (tool) => {
    const w = await world();
    expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool]), w.tokens.owner, undefined, "panel"), "write");
    expectOk(await w.call(tool, w.envelope(tool, SAMPLE_ARGS[tool]), w.tokens.ownerAgent, undefined, "agent"), "write");
  });

  it("panel.page.revert with an agent token at the panel: refused, nothing written, the page keeps the agent's edit", async () => {
    const w = await world();
    expectOk(
      await w.call(
        "mnote.page.update_title",
        w.envelope("mnote.page.update_title", { title: "Agent's title" }),
        w.tokens.ownerAgent,
      ),
      "write",
    );
    const commandId = (await w.kernel.listAudit({ documentId: w.ids.page, limit: 1 }))[0]!.commandId!;
    const before = await snapshot(w);
    // The panel's revert takes ids and builds the call itself: its door refuses the agent before any tool runs.
    await expect(
      w
        .caller(w.tokens.ownerAgent, "panel")
        .panel.page.revert({ workspaceId: w.ids.ws, documentId: w.ids.page, commandId }),
    ).rejects.toThrow(/panel is for people/);
    expect(await snapshot(w)).toEqual(before);
    expect((await w.kernel.getPage(w.ids.page))!.title).toBe("Agent's title");
  });

  it("the panel's own procedures: agent token refused at the panel, person token refused elsewhere", async () => {
    const w = await world();
    await expect(w.caller(w.tokens.ownerAgent, "panel").panel.session.me()).rejects.toThrow(/panel is for people/);
    await expect(w.caller(w.tokens.owner, "agent").panel.session.me()).rejects.toThrow(/only at the panel/);
    await expect(w.caller(w.tokens.owner, "panel").panel.session.me()).resolves.toBeTruthy();
  });
});
