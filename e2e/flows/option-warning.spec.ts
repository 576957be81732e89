import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("a dry run setting a planned option is flagged “not wired yet”, and approving it writes nothing", async ({
  page,
}) => {
  const doc = FLOW_PAGES.optionWarning.id;
  await signIn(page, "ada");
  await openPage(page, doc);

  const proposal = await agentCall(
    "mnote_page_update_options",
    { options: { protectEditing: true } },
    { documentId: doc },
  );
  expect(proposal).toMatchObject({ ok: true, audit: { effect: "dry_run" } });

  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card).toHaveAttribute("data-tool", "mnote.page.update_options");
  // The option by its label, never its key (issue 36).
  await expect(card.getByRole("list", { name: "Warnings" })).toContainText(
    "Protect editing is not supported by the editor yet",
  );
  const change = card.locator('li.change[data-kind="set_option"]');
  await expect(change).toContainText("Protect editing: off → on");
  await expect(card).not.toContainText("protectEditing", { useInnerText: true });
  await expect(change.locator(".badge", { hasText: "not wired yet" })).toBeVisible();

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(card.getByRole("alert")).toContainText("The editor does not support that page option yet");
  await expect(card.getByRole("alert")).toContainText("Nothing was written.");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");
  await expect(page.locator(".page-meta .badge.option")).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeVisible(); // still pending
});
