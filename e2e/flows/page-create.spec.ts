import { randomUUID } from "node:crypto";
import { agentCall, agentRetry, expect, openPage, panelTab, signIn, test } from "./support";

/**
 * Issue 34 item 2 (decision 0046): an agent creates a page through the bridge's HTTP door. A dry run creates nothing;
 * the real call is held (the demo workspace holds agent writes); Ada finds the proposed page, whole, on her home list
 * under its workspace and creates it; the agent's retry hears the new page's id; reverting the creation removes it.
 */
test("agent creates a page → held → Ada approves → the page exists; dry run creates nothing; revert removes it", async ({
  page,
}) => {
  const title = `Outage runbook ${randomUUID().slice(0, 6)}`;
  const args = { title, markdown: "# First steps\n\n- [ ] page the on-call\n- [ ] open the status page" };
  await signIn(page, "ada");

  const dry = await agentCall<{ plan: string[] }>("mnote_page_create", args, { dryRun: true });
  expect(dry).toMatchObject({ ok: true, audit: { effect: "dry_run", documentId: null } });
  expect(dry.result!.plan[0]).toContain(`create a page ${JSON.stringify(title)} with 3 blocks`);
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Your pages" })).toBeVisible();
  await expect(page.getByRole("link", { name: title })).toHaveCount(0);
  await expect(page.getByTestId("proposed-page")).toHaveCount(0);

  const held = await agentCall("mnote_page_create", args, { dryRun: false, idempotencyKey: `create-${title}` });
  expect(held).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });

  // The page does not exist yet: it waits on the home list, shown whole.
  await page.reload();
  const proposed = page.getByTestId("proposed-page").filter({ hasText: title });
  await expect(proposed).toBeVisible();
  await expect(proposed).toContainText("proposed by Ada's agent");
  await expect(proposed).toContainText("page the on-call");
  await expect(proposed).toContainText("open the status page");
  await proposed.getByRole("button", { name: `Create the proposed page ${title}` }).click();
  await expect(proposed).toHaveCount(0);
  const link = page.getByRole("link", { name: title });
  await expect(link).toBeVisible();

  // The agent's retry of the held call hears the page it made.
  const retry = await agentRetry<{ documentId: string }>(held.request);
  expect(retry).toMatchObject({ ok: true, result: { commandName: "page.create", revision: 1 } });
  const documentId = retry.result!.documentId;

  await openPage(page, documentId);
  await expect(page.getByText("page the on-call")).toBeVisible();

  // Reverting the creation is a revert proposal like any other; approving it removes the page.
  await panelTab(page, "Audit trail").click();
  const write = page.locator('tr[data-effect="write"][data-outcome="ok"]').filter({ hasText: "Create page" });
  await expect(write).toHaveCount(1);
  await write.getByRole("button", { name: "Revert", exact: true }).click();
  const revert = page.locator('[data-proposal-id][data-tool="panel.page.revert"]');
  await expect(revert).toHaveCount(1);
  await revert.getByRole("button", { name: "Approve", exact: true }).click();
  await expect
    .poll(async () => (await agentCall("mnote_page_get", {}, { documentId })).error?.code)
    .toBe("mnote_tool_permission_denied");
  await page.goto("/");
  await expect(page.getByRole("link", { name: title })).toHaveCount(0);
});
