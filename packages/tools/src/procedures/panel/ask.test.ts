import { describe, expect, it } from "vitest";
import { createToolsContext } from "../../context";
import { createCaller } from "../../root";
import { createWorld, type World } from "../../test-support";
import { askSessionId, isAskSessionOf } from "./ask";

const panelAs = (world: World, token: string) =>
  createCaller(createToolsContext({ kernel: world.kernel, authorization: `Bearer ${token}`, door: "panel" })).panel;

describe("panel.ask: who may ask Hermes about a page, and with what", () => {
  it("gives a writer a session of this page and instructions naming the workspace, page, revision and tools", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const started = await panelAs(w, w.tokens.editor).ask.start(ref);
    expect(started.sessionId).toMatch(new RegExp(`^mnote_${w.ids.page}_[0-9a-f]{32}$`));
    expect(started.revision).toBe(1);
    expect(started.instructions).toContain(`workspaceId ${w.ids.ws}`);
    expect(started.instructions).toContain(`documentId ${w.ids.page}`);
    expect(started.instructions).toContain("at revision 1");
    expect(started.instructions).toContain("mnote_page_get");
    // The same conversation continues under the same session id.
    expect((await panelAs(w, w.tokens.owner).ask.start({ ...ref, sessionId: started.sessionId })).sessionId).toBe(
      started.sessionId,
    );
  });

  it("refuses a viewer, a stranger, and a session id of another page", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await expect(panelAs(w, w.tokens.viewer).ask.start(ref)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(panelAs(w, w.tokens.viewer).ask.check(ref)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(panelAs(w, w.tokens.stranger).ask.start(ref)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      panelAs(w, w.tokens.owner).ask.start({ ...ref, sessionId: askSessionId("other_page") }),
    ).rejects.toMatchObject({ code: "UNPROCESSABLE_CONTENT", cause: { code: "mnote_tool_invalid_input" } });
    await expect(
      panelAs(w, w.tokens.owner).ask.start({ ...ref, sessionId: `mnote_${w.ids.page}_x` }),
    ).rejects.toMatchObject({ code: "UNPROCESSABLE_CONTENT", cause: { code: "mnote_tool_invalid_input" } });
  });

  it("finds a conversation's tool calls in the audit trail by its session id", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const panel = panelAs(w, w.tokens.owner);
    const { sessionId } = await panel.ask.start(ref);
    await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { sessionId }), w.tokens.ownerAgent);
    await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { sessionId: "another_session" }),
      w.tokens.ownerAgent,
    );
    const records = await panel.audit.list({ ...ref, sessionId });
    expect(records.map((r) => [r.identity.sessionId, r.identity.toolName])).toEqual([[sessionId, "mnote.page.get"]]);
    expect(await panel.audit.list(ref)).toHaveLength(2);
  });

  it("accepts only mnote_<documentId>_<32 hex> as a session of a page", () => {
    expect(isAskSessionOf(askSessionId("doc_plan"), "doc_plan")).toBe(true);
    expect(isAskSessionOf(askSessionId("doc_plan"), "doc")).toBe(false);
    expect(isAskSessionOf("mnote_doc_plan_ZZ", "doc_plan")).toBe(false);
  });
});
