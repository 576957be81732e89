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
  await editor.getByRole("button", { name: "Apply my edit" }).click();
  await expect(editor.getByRole("alert")).toContainText('a link to "javascript:alert(1)"');
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 1");

  await box.fill("Standup on **Monday**, see [the plan](https://example.com/plan)");
  await expect(editor.getByTestId("edit-preview").locator("strong")).toHaveText("Monday");
  // Applying the edit decides the change (decision 0030): the person's version, formatting and all, is written.
  await editor.getByRole("button", { name: "Apply my edit" }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(proposalCard(page, proposal.request.toolCallId)).toHaveCount(0);
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
  // Rejected from the page at once: nothing is written.
  await suggested.getByRole("button", { name: "Reject: Wide layout: off → on" }).click();
  await expect(suggested).toHaveCount(0);
  await expect(proposalCard(page, option.request.toolCallId)).toHaveCount(0);
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(page.locator("main.page")).not.toHaveClass(/\bwide\b/);
});
