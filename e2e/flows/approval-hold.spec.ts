import {
  agentCall,
  agentRetry,
  auditRows,
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

test("an agent's real write is held for approval, appears live, and the agent's retry replays Ada's approval", async ({
  page,
}) => {
  const doc = FLOW_PAGES.hold.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  await expect(page.getByText("Agent edits wait for approval")).toBeVisible();
  let navigations = 0;
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });

  const held = await agentCall(
    "mnote_page_update_title",
    { title: "Team roster (Q3)" },
    { documentId: doc, dryRun: false },
  );
  expect(held).toMatchObject({
    ok: false,
    httpStatus: 409,
    error: { code: "mnote_tool_approval_required" },
    audit: { commandId: null },
  });
  expect(held.error?.message).toMatch(/panel/i);

  // The page is already open: the held write shows up by itself.
  const card = proposalCard(page, held.request.toolCallId);
  await expect(card).toBeVisible();
  await expect(card.locator(".badge", { hasText: "held for approval" })).toBeVisible();
  // The held rename shows on the title as a suggestion; the title itself is unchanged.
  await expect(page.getByTestId("page-title")).toHaveAttribute("data-title", "Team roster");
  await expect(page.getByTestId("page-title").getByRole("insertion")).toHaveText("(Q3)");
  expect(navigations).toBe(0);

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-title")).toHaveText("Team roster (Q3)");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");

  // The agent retries its call (same key, same args): it gets the write Ada approved.
  const retry = await agentRetry(held.request);
  expect(retry).toMatchObject({ ok: true, httpStatus: 200, audit: { effect: "write" }, result: { revision: 2 } });
  await page.getByLabel("Show applied and rejected").check();
  // One state, the final one: applied, and no longer "held for approval" beside it (issue 36).
  await expect(card.getByTestId("proposal-status")).toHaveText("applied by Ada");
  await expect(card.locator(".badge", { hasText: "held for approval" })).toHaveCount(0);
  // The change record is one click away, never in the card's first lines.
  await openDetails(card);
  await expect(card.locator("details.ids code", { hasText: retry.audit.commandId! })).toBeVisible();
  await expectNoIdsInFirstLines(page);

  await panelTab(page, "Audit trail").click();
  const heldRow = auditRows(page, held.request.toolCallId);
  await expect(heldRow).toHaveAttribute("data-outcome", "held_for_approval");
  await expect(heldRow.locator(".entry")).toHaveText(/’s agent suggested “Rename page” — applied by Ada$/);
  await expect(auditRows(page, retry.request.toolCallId, "write")).toHaveAttribute("data-outcome", "replayed");
  await expect(auditRows(page, retry.request.toolCallId).locator(".entry")).toHaveText(
    /’s agent repeated “Rename page” — answered with the result it had before/,
  );
  await expect(auditRows(page, retry.request.toolCallId)).toContainText(retry.audit.commandId!);
  await expectNoIdsInFirstLines(page);
  expect(navigations).toBe(0);
});
