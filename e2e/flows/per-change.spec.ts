import { agentCall, blockTexts, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("Ada unticks some block changes of a page.save proposal and only the kept ones are applied, in one step", async ({
  page,
}) => {
  const doc = FLOW_PAGES.perChange.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  const homeRow = () =>
    page
      .getByRole("listitem")
      .filter({ has: page.getByRole("link", { name: FLOW_PAGES.perChange.title, exact: true }) });

  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "rn_h1", type: "heading", level: 1, text: "Release notes 2.0" },
        { id: "rn_p1", type: "paragraph", text: "Faster sync on mobile" },
        { id: "rn_p3", type: "paragraph", text: "Offline search" },
        { id: "rn_p4", type: "paragraph", text: "Keyboard shortcuts" },
      ],
      mode: "replace",
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);

  // The home page says which pages wait for a decision.
  await page.goto("/");
  await expect(homeRow().getByTestId("pending-proposals")).toHaveText("1 suggestion to review");
  await openPage(page, doc);

  const card = proposalCard(page, proposal.request.toolCallId);
  const changes = card.locator("li.change");
  await expect(changes).toHaveCount(4);
  await expect(card.getByRole("checkbox", { name: /^Keep change \d+: / })).toHaveCount(4);
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeVisible();

  // Keep the edited paragraph and the new one; drop the heading edit and the deletion.
  await changes.filter({ hasText: "2.0" }).getByRole("checkbox").uncheck();
  await card.getByRole("checkbox", { name: /^Keep change \d+: Deleted/ }).uncheck();
  const apply = card.getByRole("button", { name: "Apply 2 of 4 changes" });
  await expect(apply).toBeVisible();
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  // One request decides it: the server cuts, writes and marks the proposal (no applySelection → approve → reject chain).
  const calls: string[] = [];
  page.on("request", (request) => {
    const match = /\/api\/trpc\/([^?]+)/.exec(request.url());
    if (match && request.method() === "POST") calls.push(...decodeURIComponent(match[1]!).split(","));
  });
  await apply.click();

  await expect(page.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect
    .poll(() => blockTexts(page))
    .toEqual(["Release notes", "Faster sync on mobile", "Dark mode", "Offline search", "Keyboard shortcuts"]);
  await expect(page.getByTestId("page-title")).toHaveText("Release notes");
  // The original proposal is settled (applied in part), nothing is left pending.
  await expect(page.getByText("0 pending", { exact: true })).toBeVisible();
  expect(calls).toEqual(["panel.proposals.applyPart"]);
  await page.getByLabel("Show applied and rejected").check();
  await expect(card.locator(".badge", { hasText: "applied in part (2 of 4 changes)" })).toBeVisible();
  await page.goto("/");
  await expect(homeRow()).toBeVisible();
  await expect(homeRow().getByTestId("pending-proposals")).toHaveCount(0);
});
