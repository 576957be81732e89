import { agentCall, auditRows, expect, openPage, panelTab, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("with the panel open, an agent's dry run and reads appear without a reload", async ({ page }) => {
  const doc = FLOW_PAGES.live.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  await expect(page.getByText("0 pending", { exact: true })).toBeVisible();
  let navigations = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });

  const proposal = await agentCall("mnote_page_save", { content: [{ type: "paragraph", text: "Today: e2e flows." }], mode: "append" }, { documentId: doc });
  expect(proposal.ok).toBe(true);
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card).toBeVisible();
  await expect(card.locator('li.change[data-kind="insert"]')).toContainText("Today: e2e flows.");
  await expect(page.getByText("1 pending", { exact: true })).toBeVisible();
  await expect(panelTab(page, "Proposals")).toContainText("1");

  // The audit trail is live too: an agent read lands there while it is open.
  await panelTab(page, "Audit trail").click();
  const read = await agentCall("mnote_page_get", {}, { documentId: doc });
  expect(read).toMatchObject({ ok: true, audit: { effect: "read" } });
  await expect(auditRows(page, read.request.toolCallId, "read")).toBeVisible();
  expect(navigations).toBe(0);
});
