import type { Page } from "@playwright/test";
import { agentCall, blockTexts, expect, openPage, signIn, test } from "./support";
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

test("keyboard only: Tab to the tabs, arrows between Suggestions / Comments / Audit trail / Artifacts, Enter approves, Revert proposes, Enter approves the revert", async ({
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
  await expect(page.getByRole("tab", { name: /^Suggestions/ })).toBeFocused();
  await expect(page.getByRole("tab", { selected: true })).toHaveText(/^Suggestions/);

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
  await expect(page.getByRole("tab", { name: /^Suggestions/ })).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.getByRole("tab", { name: "Artifacts" })).toBeFocused();
  await page.keyboard.press("Home");
  await expect(page.getByRole("tab", { name: /^Suggestions/ })).toBeFocused();
  await page.keyboard.press("ArrowLeft"); // wraps the other way
  await expect(page.getByRole("tab", { name: "Artifacts" })).toBeFocused();
  await page.keyboard.press("ArrowRight");

  // The unselected tabs are not Tab stops: the next Tab lands in the panel itself.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("tabpanel", { name: /^Suggestions/ })).toBeFocused();

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
  // Focus follows the revert to the Suggestions panel, where it waits for a decision.
  await expect(page.getByRole("tab", { name: /^Suggestions/ })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel", { name: /^Suggestions/ })).toBeFocused();
  const revert = page.locator('[data-proposal-id][data-tool="panel.page.revert"]');
  await expect(revert.locator('li.change[data-kind="update"]')).toContainText("Tabs move with the arrow keys");
  await tabTo(page, (f) => f.text === "Approve");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 3");
  await expect(page.getByTestId("page-blocks")).toContainText("Tabs move with the arrow keys");
  await expect(page.getByTestId("page-blocks")).not.toContainText("Home / End");
});

/**
 * Where the keyboard focus is, in words a failure can be read by: the reason box, a suggestion in the page (by its
 * block), the page, or <body>.
 */
async function focusIsOn(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return "body";
    if (el.id === "reject-reason") return "reason box";
    const suggestion = el.closest<HTMLElement>(".suggestion");
    if (suggestion)
      return `suggestion ${suggestion.dataset.blockId ?? "?"}${el === suggestion ? "" : ` (${el.tagName})`}`;
    return `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ""}`;
  });
}

test("review keys typed as a reviewer types them: j x j x go to the changes, never into the reason box; r, Escape, keys again; the focus after Apply my edit", async ({
  page,
}) => {
  const doc = FLOW_PAGES.keysTyped.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: ["kt_p1", "kt_p2", "kt_p3", "kt_p4", "kt_p5"].map((blockId, i) => ({
        op: "replace",
        blockId,
        text: `${["Alpha", "Bravo", "Charlie", "Delta", "Echo"][i]}, edited`,
      })),
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  const inPage = page.getByTestId("in-page-review");
  const open = inPage.locator('.suggestion[data-state="pending"]');
  await expect(open).toHaveCount(5);
  const reasonBox = page.locator("#reject-reason");
  await page.locator("body").click({ position: { x: 5, y: 5 } });

  // j three times: the third change. x rejects it; the focus moves on to the next open change, in the page.
  for (const [key, at] of [
    ["j", "suggestion kt_p1"],
    ["j", "suggestion kt_p2"],
    ["j", "suggestion kt_p3"],
  ] as const) {
    await page.keyboard.press(key);
    await expect.poll(() => focusIsOn(page)).toBe(at);
  }
  await page.keyboard.press("x");
  await expect(open).toHaveCount(4);
  await expect.poll(() => focusIsOn(page)).toBe("suggestion kt_p4");
  // The focus moved on, so the keys act on that change: x again rejects it, and the focus moves on again.
  await page.keyboard.press("x");
  await expect(open).toHaveCount(3);
  await expect.poll(() => focusIsOn(page)).toBe("suggestion kt_p5");
  await page.keyboard.press("k");
  await expect.poll(() => focusIsOn(page)).toBe("suggestion kt_p2");
  await expect(reasonBox).toHaveCount(0);

  // As fast as a person types: "jx" goes to the next open change and rejects it; nothing lands in a text field.
  await page.keyboard.type("jx");
  await expect(open).toHaveCount(2);
  await expect(inPage.locator('.suggestion[data-block-id="kt_p5"]')).toHaveCount(0);
  await expect(reasonBox).toHaveCount(0);
  await expect.poll(() => focusIsOn(page)).toBe("suggestion kt_p2");

  // r opens the reason box with the focus in it: what is typed there is the reason, and only that.
  await page.keyboard.press("r");
  await expect(reasonBox).toBeFocused();
  await expect(reasonBox).toHaveValue("");
  await page.keyboard.type("Not yet");
  await expect(reasonBox).toHaveValue("Not yet");
  await expect(open).toHaveCount(2); // j and x typed in the box did nothing to the changes
  // Escape closes it; the keys review again and never reach a reason box.
  await page.keyboard.press("Escape");
  await expect(reasonBox).toHaveCount(0);
  expect(await focusIsOn(page)).not.toBe("body");
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.type("jj");
  await expect.poll(() => focusIsOn(page)).toMatch(/^suggestion kt_p[12]$/);
  await expect(reasonBox).toHaveCount(0);
  // Opened again, the box is empty: nothing typed before (keys or the cancelled reason) is in it.
  await page.keyboard.press("r");
  await expect(reasonBox).toBeFocused();
  await expect(reasonBox).toHaveValue("");
  await page.keyboard.press("Escape");

  // e edits the focused change; the button "Apply my edit" (not Ctrl+Enter) applies it: the focus goes to the
  // next open change, not to <body> (issue 36: "focus goes to <body> after Keep my edit").
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.keyboard.press("k");
  await expect.poll(() => focusIsOn(page)).toBe("suggestion kt_p1");
  await page.keyboard.press("e");
  const editor = inPage.getByRole("form", { name: /^Edit Changed paragraph/ });
  await expect(editor.getByLabel("Text")).toBeFocused();
  await editor.getByLabel("Text").fill("Alpha, as Ada wrote it");
  await editor.getByRole("button", { name: "Apply my edit" }).click();
  await expect(open).toHaveCount(1);
  await expect.poll(() => focusIsOn(page)).toBe("suggestion kt_p2");
  // The last change by key: the review is done, the focus stays with the page.
  await page.keyboard.press("a");
  await expect(page.getByTestId("in-page-review")).toHaveCount(0);
  await expect(page.getByTestId("page-blocks")).toBeFocused();
  expect(await blockTexts(page)).toEqual([
    "Alpha, as Ada wrote it",
    "Bravo, edited",
    "Charlie",
    "Delta",
    "Echo",
    "Foxtrot",
  ]);
});
