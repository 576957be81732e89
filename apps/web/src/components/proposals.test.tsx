// @vitest-environment happy-dom
import type { appRouter } from "@mnote/tools";
import { createWorld } from "@mnote/tools/testing";
import { cleanup, fireEvent, screen, within } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { afterEach, describe, expect, it } from "vitest";
import { Proposals, refusalOf, refusalOutcome } from "./proposals";
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
  it("a tool's refusal (the page moved past the proposal) says so and offers to re-run the dry run", async () => {
    const { w, pageRef } = await worldWithProposal();
    renderProposals(w, pageRef);
    const approve = await screen.findByRole("button", { name: "Approve" });
    // The page moves on before Ada approves: the tool answers a revision conflict in its envelope.
    const write = w.envelope("mnote.page.update_title", { title: "Plan, renamed meanwhile" });
    expect((await w.call("mnote.page.update_title", write, `Bearer ${w.tokens.ownerAgent}`)).ok).toBe(true);
    fireEvent.click(approve);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The page changed since this proposal. Nothing was written.");
    expect(within(alert).getByRole("button", { name: "Re-run the dry run" })).toBeTruthy();
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

  it("applying part of a proposal whose page moved meanwhile offers the re-run too (told by reason, not by words)", async () => {
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
    const refused = await client.panel.proposals.applyPart
      .mutate({ ...pageRef, proposalId: proposal!.id, keep: [0] })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(TRPCClientError);
    const refusal = refusalOf(refused as TRPCClientError<typeof appRouter>);
    expect(refusal).toMatchObject({ code: "mnote_tool_conflict", reason: "page_moved" });
    expect(refusalOutcome(refusal)).toMatchObject({ offerRerun: true });
    // The other conflict, a proposal decided meanwhile, is told apart by its reason: nothing to re-run.
    expect(refusalOutcome({ code: "mnote_tool_conflict", message: "x", reason: "proposal_decided" }).offerRerun).toBe(
      undefined,
    );
    await w.kernel.close();
  });
});
