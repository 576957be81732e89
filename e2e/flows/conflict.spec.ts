import type { Route } from "@playwright/test";
import { agentCall, approveThroughPanelApi, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("a rename proposed before another rename was approved is a conflict on that change: Approve writes nothing and says so (decision 0030)", async ({
  page,
}) => {
  const doc = FLOW_PAGES.conflict.id;
  await signIn(page, "ada");
  // Hold the panel's live stream so it has not noticed the change when Ada clicks Approve (the moment between a
  // change and its push, made deterministic). The stream's request waits unanswered: the panel is "connecting",
  // not "down", so it does not fall back to refreshing either. Queries and the refresh after a decision pass.
  const held: Route[] = [];
  const isChanges = (url: URL) => url.pathname === "/api/trpc/panel.page.changes";
  await page.route(isChanges, (route) => void held.push(route));
  // Proposed before the panel opens: it comes with the page's first HTML, not by the held stream.
  const proposal = await agentCall(
    "mnote_page_update_title",
    { title: "Quarterly review (draft)" },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeVisible();

  await expect.poll(() => held.length).toBeGreaterThan(0); // the stream asked, and waits

  // The title changes: Ada approves another rename from another tab, through the panel's own API.
  const other = await agentCall("mnote_page_update_title", { title: "Quarterly review — final" }, { documentId: doc });
  expect(other.ok).toBe(true);
  const personWrite = await approveThroughPanelApi(page, doc, other.request.toolCallId);
  expect(personWrite).toMatchObject({ ok: true, audit: { effect: "write" }, result: { revision: 2 } });

  // The first rename's one change now conflicts with the newer title: never applied over it.
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  const alert = card.getByRole("alert");
  await expect(alert).toContainText("every change left conflicts with a newer version of the page");
  await expect(alert).toContainText("Nothing was written.");
  await expect(alert.getByRole("button", { name: /Re-run/ })).toHaveCount(0);
  await expect(card.locator(".badge", { hasText: "stale" })).toHaveCount(0);
  await expect(page.getByTestId("page-title")).toHaveText("Quarterly review — final");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");

  await page.unroute(isChanges);
  for (const route of held) await route.continue().catch(() => undefined);
});
