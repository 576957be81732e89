import { blockTexts, e2eState, expect, openPage, panelTab, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * "Ask Hermes" from the page, against the stand-in for Hermes's API server (e2e/hermes-standin):
 * the stand-in's scripted model calls the real Hermes plugin, so every tool call goes through the
 * real bridge, router and database. The flows run in order: the last one stops the stand-in.
 */
test.describe.configure({ mode: "serial" });

const doc = FLOW_PAGES.askHermes.id;
const box = (page: import("@playwright/test").Page) => page.getByRole("region", { name: "Ask Hermes" });
const askHermes = async (page: import("@playwright/test").Page, question: string) => {
  await box(page).getByLabel("Ask Hermes about this page").fill(question);
  await box(page).getByRole("button", { name: /^Ask/ }).click();
};

test("Ada asks Hermes to add a line: its tool calls stream in, the held write is approved, the page changes", async ({
  page,
}) => {
  await signIn(page, "ada");
  await openPage(page, doc);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");
  await expect(page.getByRole("checkbox", { name: "Agent edits wait for approval" })).toBeChecked();

  await askHermes(page, 'add a line to the plan: "Book the launch review"');
  const run = page.getByTestId("ask-hermes-run");
  const calls = run.getByTestId("ask-hermes-call");
  // The page read, then the edit; each with its status, duration and audit record.
  await expect(calls).toHaveCount(2);
  await expect(calls.nth(0)).toHaveAttribute("data-tool", "mnote_page_get");
  await expect(calls.nth(0)).toHaveAttribute("data-status", "done");
  await expect(calls.nth(0)).toContainText(/Read page .* done in \d+ ms/);
  await expect(calls.nth(0).getByTestId("ask-hermes-audit")).toContainText(/audit #\d+: ok/);
  await expect(calls.nth(1)).toHaveAttribute("data-tool", "mnote_page_edit");
  // Held for Ada's approval: Hermes's plugin answered mnote_tool_approval_required, so Hermes marks the call failed.
  await expect(calls.nth(1).getByTestId("ask-hermes-audit")).toContainText("mnote_tool_approval_required");
  await expect(calls.nth(1).getByTestId("ask-hermes-audit")).toContainText("waits under Proposals");
  await expect(run.getByTestId("ask-hermes-answer")).toHaveText(
    'I proposed adding "Book the launch review" at the end of "Team plan"; it waits for your approval under Proposals.',
  );
  await expect(run).toHaveAttribute("data-phase", "completed");

  // The proposal is under Proposals (the panel's live updates brought it); Ada approves it.
  const card = page.locator('[data-proposal-id][data-tool="mnote.page.edit"]');
  await expect(card).toHaveCount(1);
  await expect(card).toContainText("Book the launch review");
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  expect(await blockTexts(page)).toEqual(["Plan", "Ship the panel", "Book the launch review"]);

  // After a reload: the conversation's tool calls come back from the audit trail; the chat text does not (mnote keeps none).
  await page.reload();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  const trail = box(page).getByTestId("ask-hermes-trail");
  // The read and the held edit; Ada's approval is her own call (under her panel session), in the audit trail.
  await expect(trail.locator("li")).toHaveCount(2);
  await expect(trail).toContainText("Read page");
  await expect(trail).toContainText("mnote_tool_approval_required");
  await expect(box(page)).not.toContainText("I proposed adding");

  // A follow-up continues the conversation: the panel hands Hermes back its own record of it by session id.
  await askHermes(page, "what did I ask before?");
  await expect(page.getByTestId("ask-hermes-answer")).toHaveText(
    'Earlier you asked: add a line to the plan: "Book the launch review"',
  );

  await panelTab(page, "Audit trail").click();
  await expect(page.locator("table.audit tbody tr").filter({ hasText: "Read page" }).first()).toBeVisible();
});

test("Hermes's own approval request is answered from the panel", async ({ page }) => {
  await signIn(page, "ada");
  await openPage(page, doc);
  await askHermes(page, "run something dangerous");
  const approval = page.getByTestId("ask-hermes-approval");
  await expect(approval).toContainText("recursive delete");
  await expect(approval.getByRole("button", { name: "Approve once" })).toBeVisible();
  await approval.getByRole("button", { name: "Deny" }).click();
  await expect(page.getByTestId("ask-hermes-answer")).toHaveText("You denied it, so I did not run the command.");
  await expect(page.getByTestId("ask-hermes-run")).toHaveAttribute("data-phase", "completed");
});

test("Stop ends a run, and a failed run says why", async ({ page }) => {
  await signIn(page, "ada");
  await openPage(page, doc);
  await askHermes(page, "wait and think about the plan");
  await expect(page.getByTestId("ask-hermes-answer")).toContainText("Let me think");
  await box(page).getByRole("button", { name: "Stop" }).click();
  await expect(page.getByTestId("ask-hermes-message")).toHaveText(/^Stopped\./);
  await expect(page.getByTestId("ask-hermes-run")).toHaveAttribute("data-phase", "stopped");

  await askHermes(page, "fail please");
  await expect(page.getByTestId("ask-hermes-message")).toContainText("Hermes's run failed: Error code: 401");
  await expect(page.getByTestId("ask-hermes-run")).toHaveAttribute("data-phase", "failed");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
});

test("a viewer sees why they cannot ask, and the server refuses them too", async ({ page }) => {
  await signIn(page, "cy");
  await openPage(page, doc);
  await expect(box(page).getByTestId("ask-hermes-disabled")).toHaveText(
    /Only people who may edit this page can ask Hermes/,
  );
  await expect(box(page).getByLabel("Ask Hermes about this page")).toBeDisabled();
  const { webUrl, workspaceId } = e2eState();
  const refused = await page.request.post(`${webUrl}/api/hermes/runs`, {
    data: { workspaceId, documentId: doc, input: "add a line" },
    headers: { origin: webUrl },
  });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error.code).toBe("mnote_tool_permission_denied");
  // Another site's page cannot ask with the person's cookie.
  const foreign = await page.request.post(`${webUrl}/api/hermes/runs`, {
    data: { workspaceId, documentId: doc, input: "x" },
    headers: { origin: "https://evil.example" },
  });
  expect(foreign.status()).toBe(403);
});

test("Hermes unreachable: the box says so, and nothing is written", async ({ page }) => {
  process.kill(e2eState().hermes.pid, "SIGTERM");
  await signIn(page, "ada");
  await openPage(page, doc);
  await askHermes(page, "add a line to the plan");
  await expect(page.getByTestId("ask-hermes-error")).toContainText("Hermes does not answer at");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(box(page).getByLabel("Ask Hermes about this page")).toHaveValue("add a line to the plan");
});
