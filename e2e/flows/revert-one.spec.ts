import { agentCall, blockTexts, expect, openPage, panelTab, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * Issue 32 item 3 (decision 0030): Revert takes back exactly one write. Alpha's write inserted a line and changed
 * another; Beta's write came after. Revert on Alpha's write proposes the inverse of Alpha's changes only — Beta's
 * line stays — and the revert proposal is reviewed change by change like any other: one restored, one left out.
 */
test("Revert takes back exactly one write, and its proposal is narrowed change by change in the page", async ({
  page,
}) => {
  const doc = FLOW_PAGES.revertOne.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  const alpha = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "insert", after: "ro_p1", blocks: [{ type: "paragraph", text: "Alpha line" }] },
        { op: "replace", blockId: "ro_p2", text: "Risks: low" },
      ],
    },
    { documentId: doc },
  );
  await proposalCard(page, alpha.request.toolCallId).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  const beta = await agentCall(
    "mnote_page_edit",
    { operations: [{ op: "insert", after: "ro_p2", blocks: [{ type: "paragraph", text: "Beta line" }] }] },
    { documentId: doc },
  );
  await proposalCard(page, beta.request.toolCallId).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");
  await expect.poll(() => blockTexts(page)).toEqual(["Rollout", "Alpha line", "Risks: low", "Beta line"]);

  // Every applied write offers Revert; Alpha's is the one taken back.
  await panelTab(page, "Audit trail").click();
  const writes = page.locator('tr[data-effect="write"][data-outcome="ok"]');
  await expect(writes).toHaveCount(2);
  await expect(writes.getByRole("button", { name: "Revert", exact: true })).toHaveCount(2);
  // Newest first: Alpha's approval is the older write.
  await writes.nth(1).getByRole("button", { name: "Revert", exact: true }).click();

  // The revert proposal: the inverse of Alpha's two changes, nothing of Beta's.
  const revert = page.locator('li.card[data-proposal-id][data-tool="panel.page.revert"]');
  await expect(revert).toHaveCount(1);
  await expect(revert.locator("li.change")).toHaveCount(2);
  // Which edit it takes back, in words (issue 36).
  await expect(revert.locator("h3")).toHaveText("Take back Ada’s agent’s edit");
  await expect(revert.getByTestId("reverts")).toContainText("'Alpha line'");
  await expect(revert.locator('li.change[data-kind="delete"]')).toContainText("Alpha line");
  await expect(revert.locator("li.change")).not.toContainText(["Beta line"]);

  // Narrowed in the page: the Alpha line goes, "Risks: low" stays.
  const inPage = page.getByTestId("in-page-review");
  await inPage.getByRole("button", { name: /^Reject: Changed paragraph/ }).click();
  await expect(revert.getByTestId("decided-so-far")).toHaveText("1 of 2 decided");
  await inPage.getByRole("button", { name: /^Accept: Deleted paragraph/ }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 4");
  await expect(inPage).toHaveCount(0);
  await expect.poll(() => blockTexts(page)).toEqual(["Rollout", "Risks: low", "Beta line"]);

  // The trail says what the revert's write did, in words.
  await panelTab(page, "Audit trail").click();
  const revertWrite = page.locator('tr[data-effect="write"][data-outcome="ok"]').first();
  await expect(revertWrite.getByTestId("write-description")).toContainText("Alpha line");
  await expect(revertWrite.getByTestId("write-description")).not.toContainText("Risks");
});
