import type { Route } from "@playwright/test";
import { agentCall, approveThroughPanelApi, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("approving a proposal after the page changed writes nothing, says so, and a re-run can be approved", async ({
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

  // The page changes: Ada approves another proposal from another tab, through the panel's own API
  // (a person's token writes at the panel; at the bridge it is refused).
  const other = await agentCall("mnote_page_update_title", { title: "Quarterly review — final" }, { documentId: doc });
  expect(other.ok).toBe(true);
  const personWrite = await approveThroughPanelApi(page, doc, other.request.toolCallId);
  expect(personWrite).toMatchObject({ ok: true, audit: { effect: "write" }, result: { revision: 2 } });

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  const alert = card.getByRole("alert");
  await expect(alert).toContainText("The page changed since this proposal. Nothing was written.");
  await expect(alert.getByRole("button", { name: "Re-run the dry run" })).toBeVisible();
  // The panel refreshed after the refusal: the card is marked stale, the page shows the person's title.
  await expect(card.locator(".badge", { hasText: "stale" })).toBeVisible();
  await expect(card.getByRole("button", { name: "Re-run dry run", exact: true })).toBeVisible();
  await expect(page.getByTestId("page-title")).toHaveText("Quarterly review — final");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");

  await page.unroute(isChanges);
  for (const route of held) await route.continue().catch(() => undefined);

  await alert.getByRole("button", { name: "Re-run the dry run" }).click();
  // The stale proposal is retired; the re-run is a fresh proposal on revision 2.
  await expect(card).toHaveCount(0);
  const fresh = page.locator('[data-proposal-id][data-tool="mnote.page.update_title"]');
  await expect(fresh).toHaveCount(1);
  await expect(fresh.locator(".badge", { hasText: "stale" })).toHaveCount(0);
  await expect(fresh.locator("dl.meta")).toContainText(/Base revision\s*2/);
  // Computed against the page as it is now: the person's title → the agent's.
  await expect(fresh.locator('li.change[data-kind="set_title"] del')).toHaveText("— final");
  await expect(fresh.locator('li.change[data-kind="set_title"] ins')).toHaveText("(draft)");

  await fresh.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-title")).toHaveText("Quarterly review (draft)");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");
});
