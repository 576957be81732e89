import { agentCall, e2eState, expect, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("the first HTML of a page already shows the page and its proposals, not a loading placeholder", async ({
  page,
}) => {
  const doc = FLOW_PAGES.firstPaint;
  const proposal = await agentCall(
    "mnote_page_update_title",
    { title: "Sprint retro, week 12" },
    { documentId: doc.id },
  );
  expect(proposal.ok).toBe(true);
  await signIn(page, "ada");
  const { webUrl, workspaceId } = e2eState();
  const path = `/w/${encodeURIComponent(workspaceId)}/p/${encodeURIComponent(doc.id)}`;

  // The server's answer itself, before any script runs.
  const response = await page.request.get(`${webUrl}${path}`);
  expect(response.status()).toBe(200);
  const html = await response.text();
  expect(html).toContain(doc.title);
  expect(html).toContain("What went well: the demo.");
  expect(html).toContain(proposal.request.toolCallId);
  expect(html).toMatch(/>1(<!-- -->)? pending</);
  expect(html).not.toContain('class="loading"');

  // And in a browser with scripts off, the same: nothing waits for the client to fetch.
  const context = await page.context().browser()!.newContext({ javaScriptEnabled: false, baseURL: webUrl });
  try {
    await context.addCookies(await page.context().cookies());
    const bare = await context.newPage();
    await bare.goto(path);
    await expect(bare.getByTestId("page-title")).toHaveText(doc.title);
    await expect(proposalCard(bare, proposal.request.toolCallId)).toBeVisible();
    await expect(bare.getByText("Loading…", { exact: true })).toHaveCount(0);
  } finally {
    await context.close();
  }

  // With scripts on, the browser takes over the server's HTML as it is: no hydration mismatch, no error.
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(path);
  await expect(proposalCard(page, proposal.request.toolCallId)).toBeVisible();
  await page.waitForTimeout(1_000);
  expect(problems.filter((p) => /hydrat/i.test(p))).toEqual([]);
});
