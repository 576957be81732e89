import {
  agentCall,
  auditRows,
  blockTexts,
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

test("agent proposes a page.save, Ada sees the diff, approves, and the audit trail links dry run, write and command", async ({
  page,
}) => {
  const doc = FLOW_PAGES.proposeApprove.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");

  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "lc_h1", type: "heading", level: 1, text: "Launch" },
        { id: "lc_p1", type: "paragraph", text: "Draft and review the announcement" },
        { id: "lc_p3", type: "paragraph", text: "Update the changelog" },
      ],
      mode: "replace",
    },
    { documentId: doc, dryRun: true },
  );
  expect(proposal).toMatchObject({ ok: true, audit: { effect: "dry_run", commandId: null } });

  // The diff: changed (with the word-level inline diff), deleted and inserted blocks.
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute("data-tool", "mnote.page.save");
  await expect(card.locator('li.change[data-kind="update"] ins')).toHaveText(/and review/);
  await expect(card.locator('li.change[data-kind="delete"]')).toContainText("Email the beta users");
  await expect(card.locator('li.change[data-kind="insert"]')).toContainText("Update the changelog");
  // Hermes's ids sit behind the card's "Details" (issues 22, 36): open it, then the run id is there.
  await expectNoIdsInFirstLines(page);
  await openDetails(card);
  await expect(card.getByText(proposal.request.runId, { exact: true })).toBeVisible();

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  // Applied: it leaves the pending list (and shows as applied among the decided ones).
  await expect(card).toHaveCount(0);
  await page.getByLabel("Show applied and rejected").check();
  await expect(card.locator(".badge", { hasText: "applied" })).toBeVisible();
  await openDetails(card);
  const commandId = (
    await card.locator(".copyable-id", { hasText: "change record" }).locator("code").innerText()
  ).trim();
  expect(commandId).toMatch(/^cmd_/);
  expect(await blockTexts(page)).toEqual(["Launch", "Draft and review the announcement", "Update the changelog"]);

  // Audit trail: the agent's dry run (by its toolCallId) and the write it became, on one trace.
  await panelTab(page, "Audit trail").click();
  const dryRunRow = auditRows(page, proposal.request.toolCallId, "dry_run");
  await expect(dryRunRow).toHaveCount(1);
  await expect(dryRunRow).toHaveAttribute("data-outcome", "proposal");
  // In words: whose suggestion, and where it ended up; the write it became, and who approved it.
  await expect(dryRunRow.locator(".entry")).toHaveText(/’s agent suggested “Edit page body” — applied by Ada$/);
  await expectNoIdsInFirstLines(page);
  await openDetails(dryRunRow);
  await dryRunRow.getByRole("button", { name: `Show only trace ${proposal.request.traceId}` }).click();
  const traceRows = page.locator("table.audit tbody tr");
  await expect(traceRows).toHaveCount(2);
  const writeRow = page.locator('tr[data-effect="write"][data-outcome="ok"]').filter({ hasText: commandId });
  await expect(writeRow).toHaveCount(1);
  await expect(writeRow.locator(".entry")).toHaveText(/’s agent .*'Update the changelog'.* — approved by Ada$/);
  await openDetails(writeRow);
  await writeRow.getByRole("button", { name: `Change record ${commandId}` }).click();
  await expect(writeRow.getByRole("note")).toContainText("Change record: page version 1 → 2");
});
