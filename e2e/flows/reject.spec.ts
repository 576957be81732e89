import {
  agentCall,
  auditRows,
  expect,
  expectNoIdsInFirstLines,
  openPage,
  panelTab,
  proposalCard,
  signIn,
  test,
} from "./support";
import { FLOW_PAGES } from "./pages";

test("Ada rejects an agent's proposal: it leaves the pending list, the page is unchanged, the audit trail records the rejection", async ({
  page,
}) => {
  const doc = FLOW_PAGES.reject.id;
  await signIn(page, "ada");
  await openPage(page, doc);

  const proposal = await agentCall(
    "mnote_page_update_title",
    { title: "Hiring plan (cut to one engineer)" },
    { documentId: doc },
  );
  expect(proposal).toMatchObject({ ok: true, audit: { effect: "dry_run" } });
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card).toBeVisible();
  await expect(card.locator('li.change[data-kind="set_title"] ins')).toContainText("cut to one engineer");
  await expect(page.getByText("1 pending", { exact: true })).toBeVisible();

  // Reject asks for an optional reason (the agent reads it); without one it rejects all the same.
  await card.getByRole("button", { name: "Reject", exact: true }).click();
  await card.getByRole("form", { name: "Reject this proposal" }).getByRole("button", { name: "Reject" }).click();
  await expect(card).toHaveCount(0);
  await expect(page.getByText("0 pending", { exact: true })).toBeVisible();
  await expect(page.getByTestId("page-title")).toHaveText("Hiring plan");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");

  // Among the decided proposals it shows as rejected.
  await page.getByLabel("Show applied and rejected").check();
  await expect(card.locator(".badge", { hasText: "rejected" })).toBeVisible();
  await expect(card.getByRole("button", { name: "Approve" })).toHaveCount(0);

  await panelTab(page, "Audit trail").click();
  await expect(auditRows(page, proposal.request.toolCallId, "dry_run")).toHaveAttribute("data-outcome", "proposal");
  const rejection = page.locator('tr[data-effect="none"][data-outcome="rejected"]');
  await expect(rejection).toHaveCount(1);
  // In words, one final state per entry (issue 36): the suggestion says it was rejected, the decision who rejected.
  await expect(rejection.locator(".entry")).toHaveText("Ada rejected Ada’s agent’s suggestion");
  await expect(auditRows(page, proposal.request.toolCallId, "dry_run").locator(".entry")).toHaveText(
    "Ada’s agent suggested “Rename page” — rejected by Ada",
  );
  await expectNoIdsInFirstLines(page);
  await expect(rejection).toContainText("Rename page");
  await expect(rejection).toContainText("user_ada");
  await expect(rejection).toContainText(proposal.request.traceId); // on the proposal's trace
  await expect(page.locator('tr[data-effect="write"]')).toHaveCount(0);
});
