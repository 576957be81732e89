// @vitest-environment happy-dom
import { LIMITS } from "@mnote/contract";
import { createWorld } from "@mnote/tools/testing";
import { cleanup, fireEvent, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { plainPaths, Proposals, refusalOutcome } from "./proposals";
import { ReviewProvider } from "./review-state";
import { panelClient, renderPanelView } from "./test-render";

afterEach(cleanup);

/** A world with one agent dry run pending on its page: the proposal Ada (the owner) decides on. */
async function worldWithProposal({ fromAsk = false } = {}) {
  const w = await createWorld();
  const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
  // From Ask Hermes: the agent's call names a conversation the owner opened about this page in the panel.
  const sessionId = fromAsk ? (await w.caller(w.tokens.owner).panel.ask.start(pageRef)).sessionId : "session_1";
  const dryRun = w.envelope("mnote.page.update_title", { title: "Plan (proposed)" }, { dryRun: true, sessionId });
  expect((await w.call("mnote.page.update_title", dryRun, `Bearer ${w.tokens.ownerAgent}`)).ok).toBe(true);
  const [proposal] = await w.caller(w.tokens.owner).panel.proposals.list(pageRef);
  return { w, pageRef, proposalId: proposal!.id };
}

const renderProposals = (
  w: Awaited<ReturnType<typeof createWorld>>,
  pageRef: { workspaceId: string; documentId: string },
) =>
  renderPanelView(
    <ReviewProvider>
      <Proposals pageRef={pageRef} />
    </ReviewProvider>,
    w,
    w.tokens.owner,
  );

describe("Proposals: a refused decision is said one way, whichever door it came by", () => {
  it("Approve after the page moved under every change: the conflict is said, nothing written, no re-run (decision 0030)", async () => {
    const { w, pageRef } = await worldWithProposal();
    renderProposals(w, pageRef);
    const approve = await screen.findByRole("button", { name: "Approve" });
    // The page is renamed before Ada approves: the proposal's one change (the title) now conflicts.
    const write = w.envelope("mnote.page.update_title", { title: "Plan, renamed meanwhile" });
    expect((await w.call("mnote.page.update_title", write, `Bearer ${w.tokens.ownerAgent}`)).ok).toBe(true);
    fireEvent.click(approve);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toMatch(/conflict/);
    expect(alert.textContent).toContain("Nothing was written.");
    expect(within(alert).queryByRole("button", { name: /Re-run/ })).toBeNull();
    expect((await w.caller(w.tokens.owner).panel.page.view(pageRef)).page.title).toBe("Plan, renamed meanwhile");
    await w.kernel.close();
  });

  it("a procedure's refusal (decided meanwhile, its AppError) shows the router's message, with no re-run offered", async () => {
    const { w, pageRef, proposalId } = await worldWithProposal();
    renderProposals(w, pageRef);
    const approve = await screen.findByRole("button", { name: "Approve" });
    // Someone else rejects it in another tab before Ada's click reaches the server.
    await w.caller(w.tokens.editor).panel.proposals.reject({ ...pageRef, proposalId, reason: "not now" });
    fireEvent.click(approve);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("the proposal is already rejected. Nothing was written.");
    expect(within(alert).queryByRole("button", { name: "Re-run the dry run" })).toBeNull();
    await w.kernel.close();
  });

  it.each([
    { fromAsk: true, reason: "Keep the old title", offered: true },
    { fromAsk: true, reason: "", offered: false },
    { fromAsk: false, reason: "Keep the old title", offered: false },
  ])("rejecting (from Ask Hermes: $fromAsk, reason: '$reason') offers Tell Hermes: $offered", async (row) => {
    const { w, pageRef } = await worldWithProposal({ fromAsk: row.fromAsk });
    renderProposals(w, pageRef);
    fireEvent.click(await screen.findByRole("button", { name: "Reject" }));
    fireEvent.change(screen.getByLabelText(/^Why\?/), { target: { value: row.reason } });
    const form = screen.getByRole("form", { name: "Reject this proposal" });
    fireEvent.click(within(form).getByRole("button", { name: "Reject" }));
    const decided = await screen.findByTestId("decided");
    expect(decided.textContent).toContain(row.reason ? "with your reason" : "Nothing was written.");
    expect(within(decided).queryAllByRole("button", { name: "Tell Hermes" })).toHaveLength(row.offered ? 1 : 0);
    await w.kernel.close();
  });

  it("applying part of a proposal whose page moved elsewhere meanwhile applies it (decision 0030); refusals told by reason", async () => {
    const w = await createWorld();
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const content = [
      { id: "p1", type: "paragraph", text: "First paragraph, edited" },
      { id: "p2", type: "paragraph", text: "Second paragraph" },
    ];
    const dryRun = w.envelope("mnote.page.save", { content }, { dryRun: true });
    expect((await w.call("mnote.page.save", dryRun, `Bearer ${w.tokens.ownerAgent}`)).ok).toBe(true);
    const client = panelClient(w, w.tokens.owner);
    const [proposal] = await client.panel.proposals.list.query(pageRef);
    const write = w.envelope("mnote.page.update_title", { title: "Moved meanwhile" });
    expect((await w.call("mnote.page.update_title", write, `Bearer ${w.tokens.ownerAgent}`)).ok).toBe(true);
    const applied = await client.panel.proposals.applyPart.mutate({ ...pageRef, proposalId: proposal!.id, keep: [0] });
    expect(applied).toMatchObject({ ok: true });
    // Change 0 is the deletion of the heading (a diff lists deletions first); the other two were left out.
    expect((await w.kernel.getBlocks(w.ids.page)).map((b) => b.text)).toEqual(["First paragraph"]);
    // A page that moved between reading and writing says try again; a proposal decided meanwhile says so.
    expect(refusalOutcome({ code: "mnote_tool_conflict", message: "x", reason: "page_moved" }).text).toContain(
      "try again",
    );
    expect(
      refusalOutcome({ code: "mnote_tool_conflict", message: "decided meanwhile", reason: "proposal_decided" }).text,
    ).toBe("decided meanwhile. Nothing was written.");
    await w.kernel.close();
  });
});

/** An element's text with its pieces apart ("Rename page" "Shown in the page"), as a reader sees them. */
function spaced(element: Element): string {
  const walker = element.ownerDocument.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
  const pieces: string[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) pieces.push(node.textContent ?? "");
  return pieces.join(" ");
}

/** An id or a code: what a person must never have to read in an entry's first line (issue 36). */
const ID_OR_CODE =
  /\b(?:cmd_|panel_|mnote_tool_|run_|trace_|user_|session_)|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][a-zA-Z]*\b/;

describe("Proposals speak the reader's language (issue 36)", () => {
  it("a card's heading, badges and who/when carry no id or code; the ids and page version are behind Details", async () => {
    const { w, pageRef } = await worldWithProposal();
    const { container } = renderProposals(w, pageRef);
    await screen.findByRole("button", { name: "Approve" });
    const card = container.querySelector<HTMLElement>("li.proposal")!;
    const details = card.querySelector<HTMLDetailsElement>(":scope > details.ids")!;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain("session_1");
    const firstLines = [card.querySelector(".row.between"), card.querySelector("dl.meta")].map((e) => spaced(e!));
    for (const line of firstLines) expect(line).not.toMatch(ID_OR_CODE);
    expect(card.textContent).not.toMatch(/Base revision|an agent's session|held for approval/);
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    const decided = await screen.findByTestId("decided");
    // The outcome says what happened; the change record's id is one click away.
    expect(decided.firstChild!.textContent).toBe("Applied. The page shows it now.");
    expect(within(decided).getByText("Details").closest("details")!.open).toBe(false);
    await w.kernel.close();
  });

  it("the reason box counts down, refuses past the limit before sending, and keeps what was typed", async () => {
    const { w, pageRef, proposalId } = await worldWithProposal();
    renderProposals(w, pageRef);
    fireEvent.click(await screen.findByRole("button", { name: "Reject" }));
    const box = screen.getByLabelText<HTMLTextAreaElement>(/^Why\? \(optional — the agent reads it on its next try\)/);
    expect(screen.getByTestId("characters-left").textContent).toBe(`${LIMITS.rejectionReasonLength} characters left`);
    fireEvent.change(box, { target: { value: "Too long" } });
    expect(screen.getByTestId("characters-left").textContent).toBe(
      `${LIMITS.rejectionReasonLength - "Too long".length} characters left`,
    );
    const tooLong = "x".repeat(LIMITS.rejectionReasonLength + 12);
    fireEvent.change(box, { target: { value: tooLong } });
    expect(screen.getByTestId("characters-left").textContent).toMatch(/^12 characters too many/);
    const form = screen.getByRole("form", { name: "Reject this proposal" });
    fireEvent.click(within(form).getByRole("button", { name: "Reject" }));
    // Nothing was sent: the proposal is still pending and the typed reason is all there.
    const [still] = await w.caller(w.tokens.owner).panel.proposals.list(pageRef);
    expect(still).toMatchObject({ id: proposalId, status: "pending" });
    expect(box.value).toBe(tooLong);
    expect(box.getAttribute("aria-invalid")).toBe("true");
    await w.kernel.close();
  });

  it("a refusal's field path reads as words", () => {
    expect(plainPaths("edits.0.text: at most 20000 characters")).toBe(
      "the edited block’s text: at most 20000 characters",
    );
    expect(plainPaths("decisions.3.block.text: too long")).toBe("the edited block’s text: too long");
  });
});
