import type { Page } from "@playwright/test";
import { agentCall, expect, openPage, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/** What has the keyboard focus: its role (or tag) and its accessible text. */
async function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      role: el?.getAttribute("role") ?? el?.tagName.toLowerCase() ?? "",
      text: (el?.getAttribute("aria-label") ?? el?.textContent ?? "").trim(),
    };
  });
}

/** Press Tab (or Shift+Tab) until the focused element matches; fails after `max` presses. */
async function tabTo(
  page: Page,
  matches: (f: { role: string; text: string }) => boolean,
  { back = false, max = 60 } = {},
) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    if (matches(await focused(page))) return;
  }
  throw new Error(
    `focus never reached the element after ${max} presses (last: ${JSON.stringify(await focused(page))})`,
  );
}

test("keyboard only: Tab to the tabs, arrows between Proposals / Comments / Audit trail / Artifacts, Enter approves, Revert proposes, Enter approves the revert", async ({
  page,
}) => {
  const doc = FLOW_PAGES.keyboard.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "kb_p1", type: "paragraph", text: "Tabs move with the arrow keys and Home / End" },
        { id: "kb_p2", type: "paragraph", text: "Enter approves" },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");

  // One tab stop for the whole tab list (roving tabindex): the selected tab.
  await tabTo(page, (f) => f.role === "tab");
  await expect(page.getByRole("tab", { name: /^Proposals/ })).toBeFocused();
  await expect(page.getByRole("tab", { selected: true })).toHaveText(/^Proposals/);

  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: /^Comments/ })).toBeFocused();
  await expect(page.getByRole("tab", { name: /^Comments/ })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Audit trail" })).toBeFocused();
  await expect(page.getByRole("tab", { name: "Audit trail" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel", { name: "Audit trail" }).locator("table.audit")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Artifacts" })).toBeFocused();
  await expect(page.getByRole("tabpanel", { name: "Artifacts" })).toContainText("No summary yet.");
  await page.keyboard.press("ArrowRight"); // wraps around
  await expect(page.getByRole("tab", { name: /^Proposals/ })).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.getByRole("tab", { name: "Artifacts" })).toBeFocused();
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: /^Proposals/ })).toBeFocused();
  await page.keyboard.press("ArrowLeft"); // wraps the other way
  await expect(page.getByRole("tab", { name: "Artifacts" })).toBeFocused();
  await page.keyboard.press("ArrowRight");

  // The unselected tabs are not Tab stops: the next Tab lands in the panel itself.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("tabpanel", { name: /^Proposals/ })).toBeFocused();

  await tabTo(page, (f) => f.text === "Approve");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  // The card leaves the pending list; what happened stays said, and has the focus (not <body>).
  const decided = page.getByTestId("decided");
  await expect(decided).toContainText("Applied. The page shows it now.");
  await expect(decided).toBeFocused();
  await page.waitForTimeout(1_000); // still there after the list refreshed
  await expect(decided).toBeVisible();

  // Back to the tabs, over to the Audit trail, and Revert the write with Enter.
  await tabTo(page, (f) => f.role === "tab", { back: true });
  await page.keyboard.press("ArrowRight"); // Comments
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("tab", { name: "Audit trail" })).toHaveAttribute("aria-selected", "true");
  await expect(
    page.locator('tr[data-effect="write"][data-outcome="ok"]').getByRole("button", { name: "Revert", exact: true }),
  ).toBeVisible();
  await tabTo(page, (f) => f.text === "Revert");
  await page.keyboard.press("Enter");
  // Focus follows the revert to the Proposals panel, where it waits for a decision.
  await expect(page.getByRole("tab", { name: /^Proposals/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel", { name: /^Proposals/ })).toBeFocused();
  const revert = page.locator('[data-proposal-id][data-tool="panel.page.revert"]');
  await expect(revert.locator('li.change[data-kind="update"]')).toContainText("Tabs move with the arrow keys");
  await tabTo(page, (f) => f.text === "Approve");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");
  await expect(page.getByTestId("page-blocks")).toContainText("Tabs move with the arrow keys");
  await expect(page.getByTestId("page-blocks")).not.toContainText("Home / End");
});
