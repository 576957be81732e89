import AxeBuilder from "@axe-core/playwright";
import { agentCall, e2eState, expect, openPage, panelTab, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

interface ListedThreads {
  threads: {
    threadId: string;
    anchor: { blockId: string; quote: string | null; detached: boolean };
    comments: { author: { kind: string; name: string }; markdown: string }[];
  }[];
  latestActivity: string | null;
}

/**
 * Issue 34 (decision 0040): an agent comments on a block through the bridge's HTTP door, Ada sees the thread beside
 * the block and in the Comments tab (pushed to her open panel), replies, and the agent's next comment.list reads
 * her reply, by name.
 */
test("agent comments → Ada replies in the panel → the agent's next comment.list reads the reply", async ({ page }) => {
  const doc = FLOW_PAGES.comments.id;
  await signIn(page, "ada");
  await openPage(page, doc);

  // With the panel open: the agent's comment is pushed to it (no reload).
  const created = await agentCall<{ threadId: string }>(
    "mnote_comment_create",
    { blockId: "cs_p1", quote: "Friday", markdown: "Which **Friday**: the 12th or the 19th?" },
    { documentId: doc, dryRun: false },
  );
  expect(created).toMatchObject({ ok: true, result: { commandName: "comment.create" } });
  const threadId = created.result!.threadId;
  const before = await agentCall<ListedThreads>("mnote_comment_list", {}, { documentId: doc });
  expect(before.ok).toBe(true);

  // Beside its block in the page's margin; the marker opens the thread in the Comments tab.
  const marker = page.getByTestId("comment-marker");
  await expect(marker).toBeVisible();
  await marker.click();
  await expect(panelTab(page, "Comments")).toHaveAttribute("aria-selected", "true");
  const thread = page.getByTestId("comment-thread");
  await expect(thread).toHaveCount(1);
  await expect(thread).toContainText("Friday");
  await expect(thread).toContainText("Which Friday: the 12th or the 19th?");
  await expect(thread.locator("strong", { hasText: "Friday" })).toBeVisible();

  const axe = await new AxeBuilder({ page })
    .include("#page-ai")
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);

  await thread.getByRole("textbox", { name: "Reply" }).fill("The *19th*. Marketing needs the week.");
  await thread.getByRole("button", { name: "Reply" }).click();
  await expect(thread.locator(".thread-comment")).toHaveCount(2);
  await expect(thread.locator('[data-author-kind="person"]')).toContainText("Ada");

  const after = await agentCall<ListedThreads>(
    "mnote_comment_list",
    { since: before.result!.latestActivity },
    { documentId: doc },
  );
  expect(after.ok).toBe(true);
  expect(after.result!.threads).toHaveLength(1);
  expect(after.result!.threads[0]).toMatchObject({ threadId, anchor: { blockId: "cs_p1", quote: "Friday" } });
  expect(after.result!.threads[0]!.comments.at(-1)).toEqual(
    expect.objectContaining({
      author: { kind: "person", name: "Ada" },
      markdown: "The *19th*. Marketing needs the week.",
    }),
  );

  // Resolved, the thread leaves the agent's default list and the margin; reopened, it is back.
  await thread.getByRole("button", { name: "Resolve" }).click();
  await expect(page.getByTestId("comment-marker")).toHaveCount(0);
  const resolved = await agentCall<ListedThreads>("mnote_comment_list", {}, { documentId: doc });
  expect(resolved.result!.threads).toEqual([]);
  await page.getByRole("checkbox", { name: /Show 1 resolved/ }).check();
  await page.getByTestId("comment-thread").getByRole("button", { name: "Reopen" }).click();
  await expect(page.getByTestId("comment-marker")).toBeVisible();
});

/**
 * Issue 34: a person starts a thread on a block from the panel ("Comment" beside the block). The server decides who
 * may (whoever may write the page's artifacts): a viewer is offered no "Comment" and is refused at the router; the
 * new thread is pushed to every open panel of the page, like a reply.
 */
test("Ada comments on a block from the page; Ben's open panel shows the thread; a viewer may not comment", async ({
  page,
  browser,
}) => {
  const doc = FLOW_PAGES.personComments.id;
  const { webUrl, workspaceId } = e2eState();
  // Ben has the page open in his own browser before Ada writes.
  const benContext = await browser.newContext({ baseURL: webUrl });
  const ben = await benContext.newPage();
  await signIn(ben, "ben");
  await openPage(ben, doc);
  await expect(ben.getByTestId("comment-marker")).toHaveCount(0);

  await signIn(page, "ada");
  await openPage(page, doc);
  const block = page.locator('.page-row:has([data-block-id="pc_p2"])');
  await block.hover();
  await block.getByRole("button", { name: "Comment on “Day two: hiking.”" }).click();
  await expect(panelTab(page, "Comments")).toHaveAttribute("aria-selected", "true");
  const form = page.getByRole("form", { name: "New comment on “Day two: hiking.”" });
  const box = form.getByRole("textbox", { name: "Your comment" });
  await expect(box).toBeFocused();
  await expect(form.getByTestId("characters-left")).toHaveText("10,000 characters left");
  // axe with the new thread's form open, and the "Comment" buttons beside the blocks.
  const axe = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
  await box.fill("Bring **rain gear**.");
  await form.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(form).toHaveCount(0);
  const thread = page.getByTestId("comment-thread");
  await expect(thread).toHaveCount(1);
  await expect(thread).toBeFocused();
  await expect(thread).toContainText("On “Day two: hiking.”");
  await expect(thread.locator('[data-author-kind="person"]')).toContainText("Ada");
  await expect(thread.locator("strong", { hasText: "rain gear" })).toBeVisible();

  // Pushed to Ben's open panel: the marker beside the block, and the thread in his Comments tab.
  await expect(ben.getByTestId("comment-marker")).toBeVisible();
  await ben.getByTestId("comment-marker").click();
  await expect(ben.getByTestId("comment-thread")).toContainText("Bring rain gear.");
  // The agent reads Ada's thread by name.
  const listed = await agentCall<ListedThreads>("mnote_comment_list", {}, { documentId: doc });
  expect(listed.result!.threads.map((t) => [t.anchor.blockId, t.comments[0]!.author, t.comments[0]!.markdown])).toEqual(
    [["pc_p2", { kind: "person", name: "Ada" }, "Bring **rain gear**."]],
  );
  await benContext.close();

  // Cy, a viewer: no "Comment" beside the blocks, and the router refuses a thread sent anyway.
  await signIn(page, "cy");
  await openPage(page, doc);
  await expect(page.getByTestId("comment-marker")).toBeVisible();
  await expect(page.getByTestId("comment-add")).toHaveCount(0);
  const refused = await page.request.post(`${webUrl}/api/trpc/panel.comments.start`, {
    data: { workspaceId, documentId: doc, blockId: "pc_p1", markdown: "me too", key: "cy_try_1" },
    headers: { origin: webUrl },
  });
  expect(refused.status()).toBe(403);
  const again = await agentCall<ListedThreads>("mnote_comment_list", {}, { documentId: doc });
  expect(again.result!.threads).toHaveLength(1);
});
