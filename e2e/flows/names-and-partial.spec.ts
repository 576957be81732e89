import {
  agentCall,
  auditRows,
  expect,
  expectNoIdsInFirstLines,
  openDetails,
  openPage,
  panelTab,
  proposalCard,
  signIn,
  test,
} from "./support";
import { FLOW_PAGES } from "./pages";

test("people by name, ids on demand; a proposal applied in part says so (2 of 3), shows what was left out, and keeps the agent's run", async ({
  page,
}) => {
  const doc = FLOW_PAGES.partial.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "pa_p1", type: "paragraph", text: "Morning: roadmap and budget" },
        { id: "pa_p2", type: "paragraph", text: "Lunch by the lake" },
        { id: "pa_new", type: "paragraph", text: "Evening: dinner in town" },
      ],
    },
    { documentId: doc, runId: "run_offsite" },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc); // after the call: this flow is about names and parts, live.spec.ts about push

  // Names, not ids: the demo's agent token is "demo agent", acting for Ada — Ada's agent, named by its label (a
  // token's label is no person's name, issue 36). The ids wait behind "Details".
  const card = proposalCard(page, proposal.request.toolCallId);
  const meta = card.locator("dl.meta");
  await expect(meta).toContainText("Ada’s agent “demo agent”");
  await expect(meta).toContainText(/ago|now/);
  await expectNoIdsInFirstLines(page);
  const details = card.locator(":scope > details.ids");
  await expect(details).not.toContainText(proposal.request.toolCallId, { useInnerText: true });
  await openDetails(card);
  await expect(details).toContainText(proposal.request.toolCallId, { useInnerText: true });
  await expect(details.getByRole("button", { name: `Copy call id ${proposal.request.toolCallId}` })).toBeVisible();

  // Keep two of three: one server step.
  await expect(card.getByTestId("proposal-summary")).toHaveText("3 changes · 1 inserted · 1 deleted · 1 changed");
  await card.getByRole("checkbox", { name: /^Keep change \d+: Deleted/ }).uncheck();
  await card.getByRole("button", { name: "Apply 2 of 3 changes" }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(page.getByTestId("decided")).toContainText("Applied in part (2 of 3 changes). The page shows it now.");
  await expect(page.getByText("0 pending", { exact: true })).toBeVisible();
  await expect(page.getByTestId("page-blocks")).toContainText("Afternoon: hiring"); // the delete was left out

  // Decided: "applied in part (2 of 3 changes)", neither "rejected" nor "stale", and the left-out change marked.
  await page.getByLabel("Show applied and rejected").check();
  await expect(card.getByTestId("proposal-status")).toHaveText("applied in part (2 of 3 changes)");
  await expect(card.locator(".badge", { hasText: /rejected|stale/ })).toHaveCount(0);
  await card.getByRole("button", { name: "Show 3 changes" }).click(); // decided cards open on demand
  const leftOut = card.locator("li.change[data-left-out]");
  await expect(leftOut).toHaveCount(1);
  await expect(leftOut).toHaveAttribute("data-kind", "delete");
  // A deletion not applied keeps the block: it says "not deleted", never "left out" (issue 36).
  await expect(leftOut.locator(".badge")).toHaveText("not deleted");

  // The history: "Ada's agent … — 2 of 3 changes applied by Ada", on the agent's run.
  await panelTab(page, "Audit trail").click();
  const write = page.locator('tr[data-effect="write"][data-outcome="ok"]');
  await expect(write.locator(".decision")).toHaveText(/^Ada’s agent .+ — 2 of 3 changes applied by Ada$/);
  await expect(write.getByRole("button", { name: "Revert", exact: true })).toBeVisible();
  await expectNoIdsInFirstLines(page);
  const dryRun = auditRows(page, proposal.request.toolCallId, "dry_run");
  await openDetails(dryRun);
  await dryRun.getByRole("button", { name: "Show only run run_offsite" }).click();
  await expect(page.getByLabel("Run", { exact: true })).toHaveValue("run_offsite");
  await expect(page.locator('tr[data-effect="write"][data-outcome="ok"] .decision')).toHaveText(
    / — 2 of 3 changes applied by Ada$/,
  );
});
