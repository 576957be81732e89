import {
  agentCall,
  approveThroughPanelApi,
  blockTexts,
  e2eState,
  expect,
  openPage,
  proposalCard,
  signIn,
  test,
} from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * Issue 32 items 1-2 (decision 0030): a proposal is a set of changes anchored to their blocks. A write elsewhere
 * leaves its changes current; a write to the block one change anchors on makes that change — only that one — a
 * conflict, shown with both versions and Keep mine / Take the agent's / Edit. Each decision is the server's: it
 * survives a reload, and a second reviewer's panel shows it and can decide the rest, pushed to the first one.
 */
test("a write to one block makes only that change a conflict; decisions are the server's, seen by a second reviewer", async ({
  page,
  browser,
}) => {
  const doc = FLOW_PAGES.conflictMerge.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "replace", blockId: "cm_p1", text: "Revenue up 14%." },
        { op: "replace", blockId: "cm_p2", text: "Costs down 1%." },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);

  // Two writes land first: a rename (unrelated to every change) and Ada's own edit of cm_p2.
  const rename = await agentCall("mnote_page_update_title", { title: "Quarter in numbers (Q3)" }, { documentId: doc });
  expect((await approveThroughPanelApi(page, doc, rename.request.toolCallId)).ok).toBe(true);
  const costs = await agentCall(
    "mnote_page_edit",
    { operations: [{ op: "replace", blockId: "cm_p2", text: "Costs down 3%." }] },
    { documentId: doc },
  );
  expect((await approveThroughPanelApi(page, doc, costs.request.toolCallId)).ok).toBe(true);

  await openPage(page, doc);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");
  const inPage = page.getByTestId("in-page-review");
  // The rename did not touch cm_p1: its change is current, with Accept.
  const revenue = inPage.locator('.suggestion[data-block-id="cm_p1"]');
  await expect(revenue).toHaveAttribute("data-state", "pending");
  await expect(revenue.getByRole("insertion")).toHaveText("14");
  // cm_p2 changed since: a conflict, both versions, the three choices — and no Accept over the newer text.
  const cost = inPage.locator('.suggestion[data-block-id="cm_p2"]');
  await expect(cost).toHaveAttribute("data-state", "conflict");
  await expect(cost.locator('[data-version="page"]')).toContainText("Costs down 3%.");
  await expect(cost.locator('[data-version="agent"]')).toContainText("Costs down 1%.");
  await expect(cost.getByRole("button", { name: /^Keep mine: / })).toBeVisible();
  await expect(cost.getByRole("button", { name: /^Take the agent’s: / })).toBeVisible();
  await expect(cost.getByRole("button", { name: /^Edit: / })).toBeVisible();
  await expect(cost.getByRole("button", { name: /^Accept: / })).toHaveCount(0);
  await expect(page.getByTestId("conflicts-in-page")).toContainText("1 of its changes conflict");

  // Ada accepts the current one: it is written at once; the conflict stays, alone.
  await revenue.getByRole("button", { name: /^Accept: / }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 4");
  await expect(inPage.locator(".suggestion")).toHaveCount(1);
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card.getByTestId("decided-so-far")).toHaveText("1 of 2 decided");

  // A reload reads the decision from the server.
  await page.reload();
  await expect(card.getByTestId("decided-so-far")).toHaveText("1 of 2 decided");
  await expect(card.locator('li.change[data-change="0"] [data-testid="change-state"]')).toHaveText("applied by Ada");

  // Ben, in his own browser, sees the same and resolves the conflict: keep the page's version.
  const context = await browser.newContext({ baseURL: e2eState().webUrl });
  const ben = await context.newPage();
  await signIn(ben, "ben");
  await openPage(ben, doc);
  const benCard = proposalCard(ben, proposal.request.toolCallId);
  await expect(benCard.getByTestId("decided-so-far")).toHaveText("1 of 2 decided");
  await ben
    .getByTestId("in-page-review")
    .locator('.suggestion[data-block-id="cm_p2"]')
    .getByRole("button", { name: /^Keep mine: / })
    .click();
  await expect(benCard).toHaveCount(0);
  await context.close();

  // Pushed to Ada's panel: the proposal is done, the page keeps her text, nothing more was written.
  await expect(page.getByTestId("in-page-review")).toHaveCount(0);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 4");
  expect(await blockTexts(page)).toEqual(["Revenue up 14%.", "Costs down 3%.", "Hiring paused."]);
  await page.getByLabel("Show applied and rejected").check();
  await card.getByRole("button", { name: /^Show 2 changes/ }).click();
  await expect(card.locator('li.change[data-change="1"] [data-testid="change-state"]')).toContainText(
    "rejected by Ben",
  );
});

test("a conflict resolved by the person's own version, and one by taking the agent's over the newer text", async ({
  page,
}) => {
  const doc = FLOW_PAGES.conflictEdit.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "replace", blockId: "ce_p1", markdown: "Launch on **Tuesday**." },
        { op: "replace", blockId: "ce_p2", text: "Tell the press on Wednesday." },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  // Both blocks change under the proposal.
  const meanwhile = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "replace", blockId: "ce_p1", text: "Launch on Monday, 9:00." },
        { op: "replace", blockId: "ce_p2", text: "Tell the press and the team." },
      ],
    },
    { documentId: doc },
  );
  expect((await approveThroughPanelApi(page, doc, meanwhile.request.toolCallId)).ok).toBe(true);
  await openPage(page, doc);
  const inPage = page.getByTestId("in-page-review");
  await expect(inPage.locator('.suggestion[data-state="conflict"]')).toHaveCount(2);

  // Edit: the box starts from the agent's version, formatting shown as Markdown; the person's version is written.
  const launch = inPage.locator('.suggestion[data-block-id="ce_p1"]');
  await launch.getByRole("button", { name: /^Edit: / }).click();
  const box = inPage.getByRole("textbox", { name: "Text (Markdown)" });
  await expect(box).toHaveValue("Launch on **Tuesday**.");
  await box.fill("Launch on **Tuesday**, 9:00.");
  await inPage.getByRole("button", { name: "Apply my edit" }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");

  // Take the agent's: its text replaces the newer one, by the person's explicit choice.
  await inPage
    .locator('.suggestion[data-block-id="ce_p2"]')
    .getByRole("button", { name: /^Take the agent’s: / })
    .click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 4");
  await expect(inPage).toHaveCount(0);
  await expect.poll(() => blockTexts(page)).toEqual(["Launch on Tuesday, 9:00.", "Tell the press on Wednesday."]);
  await expect(page.getByTestId("page-blocks").locator("strong")).toHaveText("Tuesday");
});
