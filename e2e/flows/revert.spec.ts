import {
  agentCall,
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

test("Ada reverts an applied agent write from the audit trail through a revert proposal", async ({ page }) => {
  const doc = FLOW_PAGES.revert.id;
  await signIn(page, "ada");
  await openPage(page, doc);

  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "bu_p1", type: "paragraph", text: "Budget: 25k" },
        { id: "bu_p2", type: "paragraph", text: "Owner: Ada" },
        { id: "bu_p3", type: "paragraph", text: "Approved by finance" },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await proposalCard(page, proposal.request.toolCallId).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect.poll(() => blockTexts(page)).toEqual(["Budget: 25k", "Owner: Ada", "Approved by finance"]);

  await panelTab(page, "Audit trail").click();
  const write = page.locator('tr[data-effect="write"][data-outcome="ok"]').filter({ hasText: "Edit page body" });
  await expect(write).toHaveCount(1);
  // The browser names the command; the server builds the call (no envelope, ids or key from the page).
  const revertRequest = page.waitForRequest((request) => request.url().includes("/api/trpc/panel.page.revert"));
  await write.getByRole("button", { name: "Revert", exact: true }).click();
  const sent = JSON.parse((await revertRequest).postData() ?? "null") as Record<
    string,
    { json?: Record<string, unknown> } | Record<string, unknown>
  >;
  const input = Object.values(sent)[0]!;
  expect(Object.keys("json" in input ? (input.json as Record<string, unknown>) : input).sort()).toEqual([
    "commandId",
    "documentId",
    "workspaceId",
  ]);

  // The revert is itself a proposal: shown as a diff, applied only on approval.
  await expect(panelTab(page, "Suggestions")).toHaveAttribute("aria-selected", "true");
  const revert = page.locator('[data-proposal-id][data-tool="panel.page.revert"]');
  await expect(revert).toHaveCount(1);
  // It says whose edit it takes back and what that edit did, not only "a revert" (issue 36).
  await expect(revert.locator("h3")).toHaveText("Take back Ada’s agent’s edit");
  await expect(revert.getByTestId("reverts")).toContainText("'Approved by finance'");
  await expectNoIdsInFirstLines(page);
  // Ada's own suggestion: a rejection's reason is kept in the history, no agent reads it.
  await revert.getByRole("button", { name: "Reject", exact: true }).click();
  await expect(revert.getByLabel("Why? (optional — kept in the history)")).toBeFocused();
  await revert.getByRole("button", { name: "Cancel" }).click();
  await expect(revert.locator('li.change[data-kind="delete"]')).toContainText("Approved by finance");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await revert.getByRole("button", { name: "Approve", exact: true }).click();

  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");
  await expect.poll(() => blockTexts(page)).toEqual(["Budget: 10k", "Owner: Ada"]);

  await panelTab(page, "Audit trail").click();
  const revertWrite = page
    .locator('tr[data-effect="write"][data-outcome="ok"]')
    .filter({ hasText: "took back an edit" });
  await expect(revertWrite).toHaveCount(1);
  await expect(revertWrite.locator(".entry")).toHaveText(/^Ada took back an edit: .*'Approved by finance'/);
  await openDetails(revertWrite);
  await revertWrite.locator(".command-link").click();
  await expect(revertWrite.getByRole("note")).toContainText("Change record: page version 2 → 3");
});
