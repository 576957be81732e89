import { agentCall, auditRows, expect, openPage, panelTab, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("with the panel open, an agent's dry run and reads are pushed to it: no reload, no polling", async ({ page }) => {
  const doc = FLOW_PAGES.live.id;
  // Every call the panel makes, from the first page load on: the live stream is one request, not a poll.
  const calls: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith("/api/trpc/")) calls.push(url.pathname.slice("/api/trpc/".length));
  });
  await signIn(page, "ada");
  await openPage(page, doc);
  await expect(page.getByText("0 pending", { exact: true })).toBeVisible();
  // The stream is open before the agent calls (the first event carries the page's cursor).
  await expect.poll(() => calls.filter((c) => c === "panel.page.changes").length).toBe(1);
  let navigations = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  // Quiet for longer than the old 1.5 s poll: the panel asks nothing while nothing happens.
  const quietFrom = calls.length;
  await page.waitForTimeout(2_000);
  expect(calls.slice(quietFrom)).toEqual([]);

  const proposal = await agentCall(
    "mnote_page_save",
    { content: [{ type: "paragraph", text: "Today: e2e flows." }], mode: "append" },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card).toBeVisible();
  await expect(card.locator('li.change[data-kind="insert"]')).toContainText("Today: e2e flows.");
  await expect(page.getByText("1 pending", { exact: true })).toBeVisible();
  await expect(panelTab(page, "Suggestions")).toContainText("1");

  // The audit trail is live too: an agent read lands there while it is open.
  await panelTab(page, "Audit trail").click();
  await page.getByRole("checkbox", { name: /^Show reads/ }).check(); // reads are folded away until asked for
  const read = await agentCall("mnote_page_get", {}, { documentId: doc });
  expect(read).toMatchObject({ ok: true, audit: { effect: "read" } });
  await expect(auditRows(page, read.request.toolCallId, "read")).toBeVisible();
  expect(navigations).toBe(0);
  // Pushed, not polled: the old cursor poll never ran, and the one stream was never reopened.
  expect(calls.filter((c) => c.includes("panel.page.activity"))).toEqual([]);
  expect(calls.filter((c) => c === "panel.page.changes")).toHaveLength(1);
});
