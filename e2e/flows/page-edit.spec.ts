import { agentCall, blockTexts, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("an agent's page.edit (by block id) is held for Ada, shows its changes, and Approve applies exactly them", async ({
  page,
}) => {
  const doc = FLOW_PAGES.pageEdit.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");

  // The demo workspace holds agent page writes: a real write answers approval_required and waits as a proposal.
  const held = await agentCall(
    "mnote_page_edit",
    {
      baseRevision: 1,
      operations: [
        { op: "replace", blockId: "rb_p2", text: "Page the lead and the backup" },
        { op: "insert", after: "rb_p3", blocks: [{ type: "todo", text: "Close the incident" }] },
        { op: "delete", blockIds: ["rb_p1"] },
      ],
    },
    { documentId: doc, dryRun: false },
  );
  expect(held).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });

  const card = proposalCard(page, held.request.toolCallId);
  await expect(card).toBeVisible();
  await expect(card).toHaveAttribute("data-tool", "mnote.page.edit");
  await expect(card.locator('li.change[data-kind="update"] ins')).toHaveText(/and the backup/);
  await expect(card.locator('li.change[data-kind="insert"]')).toContainText("Close the incident");
  await expect(card.locator('li.change[data-kind="delete"]')).toContainText("Check the dashboard");

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  expect(await blockTexts(page)).toEqual([
    "On call",
    "Page the lead and the backup",
    "Write the incident note",
    "☐ Close the incident",
  ]);
});
