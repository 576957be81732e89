import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

test("phone, 390 px: the pending count and Approve are reachable from the top; the audit trail fits the screen", async ({
  page,
}) => {
  const doc = FLOW_PAGES.phone.id;
  await signIn(page, "ada");
  const blocks = FLOW_PAGES.phone.blocks.map((b) =>
    b.id === "ph_0290" ? { ...b, text: "Paragraph 290, edited on the road." } : b,
  );
  const proposal = await agentCall("mnote_page_save", { content: blocks }, { documentId: doc });
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);

  // The page is 300 blocks long; the bar on top says what waits and leads to it.
  const bar = page.getByTestId("pending-bar");
  await expect(bar).toHaveText("1 pending — Review");
  await expect(bar).toBeInViewport();
  expect((await bar.boundingBox())!.y).toBeLessThan(10);
  await page.mouse.wheel(0, 5_000);
  await expect(bar).toBeInViewport(); // it stays on top while reading

  await bar.tap();
  const card = proposalCard(page, proposal.request.toolCallId);
  const approve = card.getByRole("button", { name: "Approve", exact: true });
  await expect(approve).toBeInViewport();
  await expect(card.locator('li.change[data-kind="update"] ins', { hasText: "edited" })).toBeVisible();

  // Nothing is wider than the screen.
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(pageWidth).toBeLessThanOrEqual(390);

  await approve.tap();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(page.getByTestId("decided")).toContainText("Applied. The page shows it now.");

  // The audit trail is one stacked card per record, inside the panel's width.
  await page.getByRole("tab", { name: "Audit trail" }).tap();
  const rows = page.locator("table.audit tbody tr");
  await expect(rows.first()).toBeVisible();
  const panel = (await page.locator(".ai-panel").boundingBox())!;
  for (const row of await rows.all()) {
    const box = (await row.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(panel.x);
    expect(box.x + box.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
  }
  await expect(rows.first().locator("td").first()).toHaveCSS("display", "block");
  // A row's ids, opened, wrap inside the panel too: never past its edge (issue 36).
  await rows
    .first()
    .locator("summary", { hasText: /^Details$/ })
    .tap();
  const opened = (await rows.first().boundingBox())!;
  expect(opened.x + opened.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
