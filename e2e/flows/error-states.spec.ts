import type { Page } from "@playwright/test";
import { agentCall, expect, openDetails, openPage, panelTab, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/** Make every panel request that carries `procedure` fail at the network, as a dropped connection would. */
async function failRequests(page: Page, procedure: string) {
  const pattern = (url: URL) => url.pathname.startsWith("/api/trpc/") && url.pathname.includes(procedure);
  await page.route(pattern, (route) => route.abort("failed"));
  return () => page.unroute(pattern);
}

test("failed requests show the error and a Retry (artifacts, command view, a proposal's changes); a filter with no match says so", async ({
  page,
}) => {
  const doc = FLOW_PAGES.retry.id;
  const note = await agentCall(
    "mnote_artifact_create_ai_note",
    { content: "Seen after a retry." },
    { documentId: doc, dryRun: false },
  );
  expect(note.ok).toBe(true);
  await signIn(page, "ada");
  await openPage(page, doc);

  // Artifacts: the request fails (and its one automatic retry), the tab says so, Retry fetches again.
  const restoreArtifacts = await failRequests(page, "panel.artifacts.list");
  await panelTab(page, "Artifacts").click();
  const artifactsError = page.getByRole("alert").filter({ hasText: "Could not load the artifacts" });
  await expect(artifactsError).toBeVisible();
  await expect(page.getByText("Loading artifacts…")).toHaveCount(0);
  await restoreArtifacts();
  await artifactsError.getByRole("button", { name: "Retry" }).click();
  await expect(page.locator('[data-kind="ai_note"]')).toContainText("Seen after a retry.");

  // The command view of an audit record.
  await panelTab(page, "Audit trail").click();
  const write = page.locator('tr[data-effect="write"][data-outcome="ok"]').first();
  await expect(write).toBeVisible();
  const restoreCommand = await failRequests(page, "panel.command.get");
  await openDetails(write);
  await write.locator(".command-link").click();
  const commandError = write.getByRole("alert");
  await expect(commandError).toContainText("Could not load the change record");
  await restoreCommand();
  await commandError.getByRole("button", { name: "Retry" }).click();
  await expect(write.getByRole("note")).toContainText("Change record: page version");

  // A filter that matches nothing says so instead of showing an empty table.
  await page.locator("summary", { hasText: "Filter by ids" }).click();
  await page.getByLabel("Run", { exact: true }).fill("run_that_never_happened");
  await expect(page.getByTestId("audit-empty")).toHaveText("Nothing in the history matches this filter.");
  await expect(page.locator("table.audit")).toHaveCount(0);
  await page.getByRole("button", { name: "Clear" }).click();
  await expect(page.locator("table.audit tbody tr").first()).toBeVisible();

  // A proposal's changes (fetched when its card opens; the list itself comes with the HTML): an error and a Retry.
  const proposal = await agentCall(
    "mnote_page_save",
    { content: [{ type: "paragraph", text: "Requests fail, then succeed." }] },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  const restoreChanges = await failRequests(page, "panel.proposals.get");
  await page.reload();
  const card = proposalCard(page, proposal.request.toolCallId);
  const changesError = card.getByRole("alert").filter({ hasText: "Could not load the changes" });
  await expect(changesError).toBeVisible({ timeout: 15_000 });
  await restoreChanges();
  await changesError.getByRole("button", { name: "Retry" }).click();
  await expect(card.locator('li.change[data-kind="insert"]')).toContainText("succeed");
});
