import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("a todo tick, a heading level, a code language and a block type show in the proposal and, reversed, in its revert", async ({
  page,
}) => {
  const doc = FLOW_PAGES.attributes.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "at_h1", type: "heading", level: 1, text: "This sprint" },
        { id: "at_t1", type: "todo", checked: true, text: "Write the migration" },
        { id: "at_c1", type: "code", language: "bash", text: "npm test" },
        { id: "at_p1", type: "quote", text: "Ask early, ask often." },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc); // after the call: this flow is about what the diff shows, live.spec.ts about push

  const card = proposalCard(page, proposal.request.toolCallId);
  const updates = card.locator('li.change[data-kind="update"]');
  await expect(updates).toHaveCount(4);
  await expect(card.getByTestId("proposal-summary")).toHaveText("4 changes · 4 changed");
  await expect(card.locator('.attr-change[data-attribute="heading level"]')).toHaveText("heading level: 2 → 1");
  await expect(card.locator('.attr-change[data-attribute="todo"]')).toHaveText("todo: ☐ not done → ☑ done");
  await expect(card.locator('.attr-change[data-attribute="code language"]')).toHaveText("code language: none → bash");
  await expect(card.locator('.attr-change[data-attribute="type"]')).toHaveText("type: paragraph → quote");
  // The text did not change, and reads as it is (no word diff).
  await expect(updates.filter({ hasText: "todo" }).locator(".same-text")).toHaveText("Write the migration");

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(page.getByTestId("page-blocks").getByRole("img", { name: "done", exact: true })).toBeVisible();
  await expect(page.getByTestId("page-blocks").locator("blockquote")).toHaveText("Ask early, ask often.");

  // The revert proposal shows the same attributes going back.
  await page.getByRole("tab", { name: "Audit trail" }).click();
  await page
    .locator('tr[data-effect="write"][data-outcome="ok"]')
    .filter({ hasText: "Edit page body" })
    .getByRole("button", { name: "Revert", exact: true })
    .click();
  const revert = page.locator('[data-proposal-id][data-tool="panel.page.revert"]');
  await expect(revert.locator('.attr-change[data-attribute="todo"]')).toHaveText("todo: ☑ done → ☐ not done");
  await expect(revert.locator('.attr-change[data-attribute="heading level"]')).toHaveText("heading level: 1 → 2");
  await expect(revert.locator('.attr-change[data-attribute="code language"]')).toHaveText("code language: bash → none");
  await expect(revert.locator('.attr-change[data-attribute="type"]')).toHaveText("type: quote → paragraph");
});
