import { agentCall, expect, proposalCard, signIn, test } from "./support";

const PLAN_TITLE = "项目计划";

test.describe("a user without access sees nothing of a page", () => {
  let toolCallId = "";

  test.beforeAll(async () => {
    const proposal = await agentCall("mnote_page_update_title", { title: "项目计划 (v2)" }, { documentId: "doc_plan" });
    expect(proposal.ok).toBe(true);
    toolCallId = proposal.request.toolCallId;
  });

  test("Dee (another workspace) gets “Page not found” for doc_plan, with nothing of its title", async ({ page }) => {
    await signIn(page, "dee", { fresh: true });
    await expect(page.getByText(PLAN_TITLE)).toHaveCount(0);
    const response = await page.goto("/w/ws_demo/p/doc_plan");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    const html = await page.content();
    expect(html).not.toContain(PLAN_TITLE);
    expect(html).not.toContain("Project plan");
    expect(html).not.toContain(toolCallId);
  });

  test("Cy (viewer) gets the same “Page not found” for the private page", async ({ page }) => {
    await signIn(page, "cy", { fresh: true });
    await expect(page.getByRole("link", { name: PLAN_TITLE })).toBeVisible();
    await expect(page.getByText("Ada's private page")).toHaveCount(0);
    const missing = await page.goto("/w/ws_demo/p/doc_does_not_exist");
    const missingText = await page.locator("main").innerText();
    const response = await page.goto("/w/ws_demo/p/doc_private");
    expect(response?.status()).toBe(missing?.status());
    await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
    expect(await page.locator("main").innerText()).toBe(missingText);
    const html = await page.content();
    expect(html).not.toContain("Ada's private page");
    expect(html).not.toContain("Salary");
  });

  test("Cy (viewer) sees doc_plan's proposals but cannot approve them", async ({ page }) => {
    await signIn(page, "cy");
    await page.goto("/w/ws_demo/p/doc_plan");
    await expect(page.getByTestId("page-title")).toHaveAttribute("data-title", PLAN_TITLE);
    const card = proposalCard(page, toolCallId);
    await expect(card).toBeVisible();
    await expect(card.getByText("You can read this page but not approve edits on it.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Reject" })).toHaveCount(0);
    await expect(page.getByRole("checkbox", { name: "Agent edits wait for approval" })).toHaveCount(0);
  });
});
