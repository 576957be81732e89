import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * Issue 32 item 6: editing a suggestion keeps its formatting. The edit box shows the proposed block's bold and link
 * as Markdown; `**Monday**` typed there is stored bold (the agent reads `**Monday**`, not `\*\*Monday\*\*`); a
 * refused link is refused in the box with its reason. A rename and an option change show in the page itself.
 */
test("the edit box shows a suggestion's marks as Markdown and keeps them: **Monday** is stored bold", async ({
  page,
}) => {
  const doc = FLOW_PAGES.editFormat.id;
  await signIn(page, "ada");
  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "insert", after: "ef_p1", markdown: "Standup on **Friday**, see [the plan](https://example.com/plan)" },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);
  const inPage = page.getByTestId("in-page-review");
  await inPage.getByRole("button", { name: "Edit: Inserted paragraph" }).click();
  const editor = inPage.getByRole("form", { name: "Edit Inserted paragraph" });
  const box = editor.getByRole("textbox", { name: "Text (Markdown)" });
  await expect(box).toHaveValue("Standup on **Friday**, see [the plan](https://example.com/plan)");

  // A link the page cannot hold is refused in the box, with why; nothing is kept.
  await box.fill("Standup on **Monday**, see [the plan](javascript:alert(1))");
  await editor.getByRole("button", { name: "Keep my edit" }).click();
  await expect(editor.getByRole("alert")).toContainText('a link to "javascript:alert(1)"');
  await expect(inPage.locator(".badge", { hasText: "your edit" })).toHaveCount(0);

  await box.fill("Standup on **Monday**, see [the plan](https://example.com/plan)");
  await expect(editor.getByTestId("edit-preview").locator("strong")).toHaveText("Monday");
  await editor.getByRole("button", { name: "Keep my edit" }).click();
  const inserted = inPage.getByRole("insertion");
  await expect(inserted.locator("strong")).toHaveText("Monday");
  await expect(inserted.locator("a")).toHaveAttribute("href", "https://example.com/plan");
  await expect(inserted).toHaveText("Standup on Monday, see the plan");

  await proposalCard(page, proposal.request.toolCallId).getByRole("button", { name: "Apply with your edits" }).click();
  await expect(page.getByTestId("decided")).toContainText("Applied with your edits");
  const block = page.getByTestId("page-blocks").locator(".block", { hasText: "Standup on Monday" });
  await expect(block.locator("strong")).toHaveText("Monday");
  await expect(block.locator("a")).toHaveAttribute("href", "https://example.com/plan");

  // What the agent reads back: bold by Markdown, never escaped asterisks.
  const read = await agentCall<{ markdown: string }>("mnote_page_get", { format: "markdown" }, { documentId: doc });
  expect(read.result!.markdown).toContain("Standup on **Monday**, see [the plan](https://example.com/plan)");
  expect(read.result!.markdown).not.toContain("\\*");
});

test("a rename shows as the heading with its deleted and inserted words, the page stays readable; an option change shows as on/off", async ({
  page,
}) => {
  const doc = FLOW_PAGES.titleInPage.id;
  await signIn(page, "ada");
  const rename = await agentCall("mnote_page_update_title", { title: "Roadmap 2027" }, { documentId: doc });
  expect(rename.ok).toBe(true);
  await openPage(page, doc);
  const title = page.getByTestId("page-title");
  await expect(title.getByRole("insertion")).toHaveText("2027");
  await expect(title).toHaveAttribute("data-title", "Roadmap");
  // A rename changes no block: the page's blocks all show, none folded away.
  await expect(page.getByTestId("unchanged-stretch")).toHaveCount(0);
  await expect(page.getByTestId("page-blocks").locator(".block")).toHaveCount(6);
  await page.getByRole("button", { name: "Accept: Rename to “Roadmap 2027”" }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(title).toHaveText("Roadmap 2027");
  await expect(title.getByRole("insertion")).toHaveCount(0);

  const option = await agentCall("mnote_page_update_options", { options: { wideLayout: true } }, { documentId: doc });
  expect(option.ok).toBe(true);
  const suggested = page.locator('[data-kind="set_option"][data-option="wideLayout"]');
  await expect(suggested).toContainText("Option Wide layout: off → on");
  await expect(suggested.getByRole("deletion")).toHaveText("off");
  await expect(suggested.getByRole("insertion")).toHaveText("on");
  // Rejecting it from the page opens the panel's reject form (the reason the agent reads).
  await suggested.getByRole("button", { name: "Reject: Wide layout: off → on" }).click();
  const card = proposalCard(page, option.request.toolCallId);
  await card.getByRole("form", { name: "Reject this proposal" }).getByRole("button", { name: "Reject" }).click();
  await expect(page.getByTestId("decided")).toContainText("Rejected");
  await expect(suggested).toHaveCount(0);
  await expect(page.locator("main.page")).not.toHaveClass(/\bwide\b/);
});
