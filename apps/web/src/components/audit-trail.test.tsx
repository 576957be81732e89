// @vitest-environment happy-dom
import { createWorld } from "@mnote/tools/testing";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { AuditTrail } from "./audit-trail";
import { panelClient, renderPanelView } from "./test-render";

afterEach(cleanup);

/** An id or a code in an entry's first line: what a person must never have to read there (issue 36). */
const ID_OR_CODE = /\b(?:cmd_|panel_|mnote_tool_|run_|trace_|user_)|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][a-zA-Z]*\b/;

const rows = (container: HTMLElement) => [...container.querySelectorAll<HTMLTableRowElement>("tbody tr")];
/** An entry's sentence: its "What happened" cell without the Details disclosure and the Revert button. */
const sentence = (row: HTMLTableRowElement) => row.querySelector(".entry")!.textContent.trim();

describe("AuditTrail", () => {
  it("says each entry in words with ids one click away, folds reads away, and filters by who, what and run", async () => {
    const w = await createWorld();
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    renderPanelView(<AuditTrail pageRef={pageRef} onReverted={() => {}} />, w, w.tokens.owner);
    expect(await screen.findByTestId("audit-empty")).toBeTruthy();
    cleanup();

    const agent = `Bearer ${w.tokens.ownerAgent}`;
    await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { runId: "run_read" }), agent);
    const save = w.envelope(
      "mnote.page.save",
      { content: [{ type: "paragraph", text: "added" }], mode: "append" },
      { runId: "run_write" },
    );
    expect((await w.call("mnote.page.save", save, agent)).ok).toBe(true);

    const { container } = renderPanelView(<AuditTrail pageRef={pageRef} onReverted={() => {}} />, w, w.tokens.owner);
    // The read is folded away: the one entry is the write, in words, with no id or code in it.
    await waitFor(() => expect(rows(container)).toHaveLength(1));
    const [write] = rows(container);
    expect(write!.getAttribute("data-effect")).toBe("write");
    expect(sentence(write!)).toMatch(/^.+’s agent inserted 'added' at the end$/);
    expect(sentence(write!)).not.toMatch(ID_OR_CODE);
    expect(within(write!).getByText("Details").closest("details")!.open).toBe(false);

    fireEvent.click(screen.getByRole("checkbox", { name: /Show reads \(1 hidden\)/ }));
    await waitFor(() => expect(rows(container)).toHaveLength(2));
    expect(rows(container).map((row) => row.getAttribute("data-effect"))).toEqual(["write", "read"]);
    expect(sentence(rows(container)[1]!)).toMatch(/’s agent read the page/);

    // What: only the changes to the page.
    fireEvent.change(screen.getByLabelText("What"), { target: { value: "changes" } });
    await waitFor(() => expect(rows(container)).toHaveLength(1));
    fireEvent.change(screen.getByLabelText("What"), { target: { value: "all" } });
    await waitFor(() => expect(rows(container)).toHaveLength(2));

    // A run named in an entry's Details narrows the history to it.
    fireEvent.click(within(rows(container)[1]!).getByRole("button", { name: "Show only run run_read" }));
    await waitFor(() => expect(rows(container)).toHaveLength(1));
    expect(rows(container)[0]!.getAttribute("data-effect")).toBe("read");
    expect(screen.getByPlaceholderText<HTMLInputElement>("runId").value).toBe("run_read");
    fireEvent.click(screen.getByRole("button", { name: "Clear" }));
    await waitFor(() => expect(rows(container)).toHaveLength(2));
    await w.kernel.close();
  });

  it("a held edit has one state, the final one; the agent's retry asks, it does not approve; the rejection says why", async () => {
    const w = await createWorld();
    await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const envelope = w.envelope(
      "mnote.page.edit",
      { operations: [{ op: "insert", after: "p1", blocks: [{ type: "paragraph", text: "Alpha line" }] }] },
      { idempotencyKey: "held_call_1" },
    );
    const agentCall = () => w.call("mnote.page.edit", envelope, w.tokens.ownerAgent);
    expect((await agentCall()).error?.code).toBe("mnote_tool_approval_required");
    expect((await agentCall()).error?.code).toBe("mnote_tool_approval_required");
    const panel = panelClient(w, w.tokens.owner).panel;
    const [proposal] = await panel.proposals.list.query(pageRef);
    await panel.proposals.reject.mutate({ ...pageRef, proposalId: proposal!.id });
    expect((await agentCall()).error?.code).toBe("mnote_tool_rejected");

    const { container } = renderPanelView(<AuditTrail pageRef={pageRef} onReverted={() => {}} />, w, w.tokens.owner);
    await waitFor(() => expect(rows(container)).toHaveLength(4));
    const sentences = rows(container).map(sentence);
    // Newest first: the retry after the rejection, the rejection, the retry while pending, the held edit.
    expect(sentences[0]).toMatch(
      /’s agent asked again about its suggestion “Edit page blocks” — told it was rejected$/,
    );
    expect(sentences[1]).toMatch(/^\S+ rejected .+’s agent’s suggestion$/);
    expect(sentences[2]).toMatch(/asked again .* — told it was still waiting for review$/);
    expect(sentences[3]).toMatch(/’s agent suggested “Edit page blocks” — rejected by \S+$/);
    for (const text of sentences) {
      expect(text).not.toMatch(ID_OR_CODE);
      expect(text).not.toMatch(/tried to approve|held for/);
    }
    // Who: only the person's own decisions.
    const who = screen.getByLabelText<HTMLSelectElement>("Who");
    const person = [...who.options].find((o) => o.value.startsWith("person:"))!;
    fireEvent.change(who, { target: { value: person.value } });
    await waitFor(() => expect(rows(container)).toHaveLength(1));
    expect(rows(container)[0]!.getAttribute("data-outcome")).toBe("rejected");
    await w.kernel.close();
  });
});
