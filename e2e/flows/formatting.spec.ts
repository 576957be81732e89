import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * Formatting (decision 0026): the agent reads the page as Markdown and proposes bold and a link by Markdown;
 * the person sees "bold added to 'Friday'" in the review, approves, and the page shows <strong> and a safe <a>.
 * Page text that looks like HTML stays text, and a javascript: link is refused before anyone reviews it.
 */
test("an agent's Markdown formatting is reviewed as a mark change, approved, and rendered, with no HTML from page text", async ({
  page,
}) => {
  const doc = FLOW_PAGES.formatting.id;
  await signIn(page, "ada");

  const read = await agentCall<{ markdown: string }>("mnote_page_get", { format: "markdown" }, { documentId: doc });
  expect(read.ok).toBe(true);
  expect(read.result!.markdown).toContain("Ship on Friday <!-- mnote:id=fm_p1 -->");
  expect(read.result!.markdown).toContain("  - Final read <!-- mnote:id=fm_l2 -->");

  const refused = await agentCall(
    "mnote_page_edit",
    { operations: [{ op: "replace", blockId: "fm_p2", markdown: "[docs](javascript:alert(1))" }] },
    { documentId: doc },
  );
  expect(refused.ok).toBe(false);
  expect(refused.error?.code).toBe("mnote_tool_invalid_input");

  const proposal = await agentCall(
    "mnote_page_edit",
    {
      operations: [
        { op: "replace", blockId: "fm_p1", markdown: "Ship on **Friday**" },
        {
          op: "replace",
          blockId: "fm_p2",
          markdown: "\\<img src=x onerror=alert(1)> see the [docs](https://example.com/docs)",
        },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  await openPage(page, doc);

  const card = proposalCard(page, proposal.request.toolCallId);
  await expect(card.locator('li.change[data-kind="update"]')).toHaveCount(2);
  const formatting = card.locator('.attr-change[data-attribute="formatting"]');
  await expect(formatting.filter({ hasText: "bold" })).toHaveText("bold added to 'Friday'");
  await expect(formatting.filter({ hasText: "link" })).toHaveText("link added to 'docs'");
  // The formatting itself is drawn, before → after, in the card and in the page; the words stay for screen readers.
  await expect(card.locator(".formatting-diff ins strong")).toHaveText("Friday");
  await expect(card.locator(".formatting-diff ins a")).toHaveText("docs");
  await expect(formatting.first()).toHaveClass(/sr-only/);
  await expect(page.getByTestId("in-page-review").locator(".formatting-diff ins strong")).toHaveText("Friday");

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  const blocks = page.getByTestId("page-blocks");
  await expect(blocks.locator("strong")).toHaveText("Friday");
  const link = blocks.locator("a", { hasText: "docs" });
  await expect(link).toHaveAttribute("href", "https://example.com/docs");
  await expect(link).toHaveAttribute("rel", "noopener noreferrer");
  // The page text that looks like HTML is text: no element came of it.
  await expect(blocks.locator("img")).toHaveCount(0);
  await expect(blocks).toContainText("<img src=x onerror=alert(1)> see the docs");
  // The nested list item is indented one level.
  await expect(blocks.locator('p.block.bulleted[data-indent="1"]')).toHaveText(/Final read/);
});
