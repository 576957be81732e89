import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import {
  agentCall,
  agentRetry,
  auditRows,
  blockTexts,
  expect,
  openPage,
  panelTab,
  proposalCard,
  signIn,
  test,
} from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * Issue 22: review in the page. Suggestions where they land (<ins>/<del>), Accept / Reject on a change in the
 * page, editing a proposed paragraph before applying it, rejecting with a reason the agent's retry reads, and
 * the keyboard path. Run in the Asia/Shanghai time zone (the server's is another): no hydration mismatch.
 */
test.use({ timezoneId: "Asia/Shanghai" });

/** Console errors of the page (React reports a hydration mismatch there). */
function consoleErrors(page: Page) {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

test("a proposal shows in the page as <ins>/<del>; one change accepted from the page is what lands", async ({
  page,
}) => {
  const errors = consoleErrors(page);
  const doc = FLOW_PAGES.inPage.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "insert", after: "ip_p1", blocks: [{ type: "paragraph", text: "Docs move to the wiki." }] },
        { op: "replace", blockId: "ip_p1", text: "We ship on Tuesday." },
        { op: "delete", blockIds: ["ip_p2"] },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  const inPage = page.getByTestId("in-page-review");
  await expect(inPage).toBeVisible();
  // Inserted, deleted and changed blocks where they land, with the roles assistive technology reads.
  await expect(inPage.getByRole("insertion").filter({ hasText: "Docs move to the wiki." })).toBeVisible();
  await expect(inPage.getByRole("deletion").filter({ hasText: "The old importer stays." })).toBeVisible();
  const changed = inPage.locator('.suggestion[data-kind="update"]');
  await expect(changed.locator("del")).toHaveText("Monday");
  await expect(changed.locator("ins")).toHaveText("Tuesday");
  // The page as it is stays readable under the suggestions.
  expect(await blockTexts(page)).toEqual([
    "Release",
    "We ship on Monday.",
    "The old importer stays.",
    "Thanks to everyone.",
  ]);
  await expectNoAxeViolations(page);

  // Accept the insert on the change itself: it is applied at once (decision 0030), the other two still wait, and
  // the list says who decided it.
  const card = proposalCard(page, proposal.request.toolCallId);
  await inPage.getByRole("button", { name: "Accept: Inserted paragraph" }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(inPage.locator('.suggestion[data-kind="insert"]')).toHaveCount(0);
  await expect(card.getByTestId("decided-so-far")).toHaveText("1 of 3 decided");
  await expect(card.locator('li.change[data-kind="insert"] [data-testid="change-state"]')).toHaveText("applied by Ada");
  // Reject the other two in the page: rejections write nothing; the proposal is done.
  await inPage.getByRole("button", { name: "Reject: Changed paragraph" }).click();
  await expect(card.getByTestId("decided-so-far")).toHaveText("2 of 3 decided");
  await inPage.getByRole("button", { name: "Reject: Deleted paragraph" }).click();
  await expect(page.getByTestId("in-page-review")).toHaveCount(0);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  expect(await blockTexts(page)).toEqual([
    "Release",
    "We ship on Monday.",
    "Docs move to the wiki.",
    "The old importer stays.",
    "Thanks to everyone.",
  ]);
  expect(errors.filter((e) => /hydrat/i.test(e))).toEqual([]);
});

test("edit an inserted paragraph before accepting it: the page has the edited text, the audit keeps both", async ({
  page,
}) => {
  const doc = FLOW_PAGES.editAccept.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_save",
    { content: [{ type: "paragraph", text: "We are closed on Fridy." }], mode: "append" },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  const inPage = page.getByTestId("in-page-review");
  await inPage.getByRole("button", { name: "Edit: Inserted paragraph" }).click();
  const editor = inPage.getByRole("form", { name: "Edit Inserted paragraph" });
  await editor.getByLabel("Text").fill("We are closed on Friday.");
  // Applying the edit decides the change (decision 0030): the person's version is written at once.
  await editor.getByRole("button", { name: "Apply my edit" }).click();
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  // The page's blocks follow with its next read.
  await expect.poll(() => blockTexts(page)).toEqual(["We answer within a day.", "We are closed on Friday."]);

  await page.getByLabel("Show applied and rejected").check();
  await expect(card.getByTestId("proposal-status")).toHaveText("applied with Ada’s edits");
  await panelTab(page, "Audit trail").click();
  const write = page.locator('tr[data-effect="write"]');
  await expect(write.locator('[data-decision="applied_with_edits"]')).toContainText("with Ada’s edits");
  await write.getByText("1 edited block").click();
  await expect(write.locator("[data-edited-block]")).toContainText("We are closed on Fridy.");
  await expect(write.locator("[data-edited-block]")).toContainText("We are closed on Friday.");
  // An edited apply is an AI write like any other: it can be reverted.
  await expect(write.getByRole("button", { name: "Revert", exact: true })).toBeVisible();
});

test("reject with a reason: the agent's retry of its held call answers mnote_tool_rejected with that reason", async ({
  page,
}) => {
  const doc = FLOW_PAGES.rejectReason.id;
  await signIn(page, "ada");
  const held = await agentCall(
    "mnote_page_update_title",
    { title: "Pricing (free forever)" },
    { documentId: doc, dryRun: false },
  );
  expect(held.error?.code).toBe("mnote_tool_approval_required");
  await openPage(page, doc);
  const card = proposalCard(page, held.request.toolCallId);
  await card.getByRole("button", { name: "Reject", exact: true }).click();
  await card.getByLabel(/Why\?/).fill("We never promise forever; say 'for small teams'.");
  await card.getByRole("form", { name: "Reject this proposal" }).getByRole("button", { name: "Reject" }).click();
  await expect(page.getByTestId("decided")).toContainText("Rejected “Rename page” with your reason");

  const retry = await agentRetry(held.request);
  expect(retry.ok).toBe(false);
  expect(retry.error?.code).toBe("mnote_tool_rejected");
  expect(retry.error?.message).toContain(
    'by "Ada", who wrote: ' + "\"We never promise forever; say 'for small teams'.\"",
  );
  await expect(page.getByTestId("page-title")).toHaveText("Pricing");

  await page.getByLabel("Show applied and rejected").check();
  await expect(card.getByTestId("rejection-reason")).toContainText("We never promise forever");
  await panelTab(page, "Audit trail").click();
  await expect(page.locator('[data-decision="rejected"]').first()).toContainText("We never promise forever");
  await expect(auditRows(page, retry.request.toolCallId)).toHaveAttribute("data-outcome", "failed");
});

test("keyboard review: ? lists the shortcuts, j/k move, x rejects the focused change at once, e edits without the keys firing, Ctrl+Enter applies the edit", async ({
  page,
}) => {
  const doc = FLOW_PAGES.keys.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "replace", blockId: "rk_p1", text: "One, edited" },
        { op: "replace", blockId: "rk_p3", text: "Three, edited" },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  await expect(page.getByTestId("in-page-review")).toBeVisible();
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("?");
  const overlay = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(overlay).toContainText("Next change");
  await expectNoAxeViolations(page);
  await page.keyboard.press("Escape");
  await expect(overlay).toHaveCount(0);

  const inPage = page.getByTestId("in-page-review");
  await page.keyboard.press("j");
  await expect(inPage.locator(".suggestion[data-kind=update]").first()).toBeFocused();
  await page.keyboard.press("j");
  await expect(inPage.locator(".suggestion[data-kind=update]").nth(1)).toBeFocused();
  // x rejects the focused change at once: it leaves the page's suggestions.
  await page.keyboard.press("x");
  await expect(inPage.locator(".suggestion[data-kind=update]")).toHaveCount(1);
  await expect(inPage.locator(".suggestion[data-kind=update]")).toContainText("One");
  // The focus moves on to the change still open, not to <body>: the next keys review it (issue 36).
  await expect(inPage.locator(".suggestion[data-kind=update]")).toBeFocused();
  await page.keyboard.press("k");
  await page.keyboard.press("e");
  const editor = inPage.getByRole("form", { name: /^Edit Changed paragraph/ });
  // Typing in the edit box is typing: j, k, x and ? land in the text.
  await editor.getByLabel("Text").fill("");
  await editor.getByLabel("Text").pressSequentially("jkx? One");
  await expect(overlay).toHaveCount(0);
  // Ctrl+Enter applies the person's version: the last open change, so the proposal is done.
  await page.keyboard.press("Control+Enter");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(page.getByTestId("in-page-review")).toHaveCount(0);
  expect(await blockTexts(page)).toEqual(["jkx? One", "Two", "Three"]);
  // The review is done: the focus stays with the page, not on <body>.
  await expect(page.getByTestId("page-blocks")).toBeFocused();
});
