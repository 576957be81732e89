import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { agentCall, expect, openDetails, openPage, panelTab, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/** axe-core's WCAG 2.x A/AA rules and best practices; any violation fails with its rule ids and targets. */
async function expectNoViolations(page: Page, where: string) {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
  expect(found, `axe violations on ${where}`).toEqual([]);
}

/**
 * One axe analysis takes 10–25 s of a busy 2-core machine shared by the other flows (measured in a trace: four
 * analyses and their set-up overran the default minute), so each flow's time follows its number of analyses.
 */
const AXE_RUN_MS = 25_000;

test("sign-in, home, and the page with its panel (every tab, a pending proposal) have no axe violations", async ({
  page,
}) => {
  // Six axe runs (sign-in, home, three tabs and the reject form), each several seconds on a busy 2-core machine.
  test.setTimeout(60_000 + 6 * AXE_RUN_MS);
  const doc = FLOW_PAGES.accessibility.id;
  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "ax_h1", type: "heading", level: 1, text: "Checklist" },
        { id: "ax_t1", type: "todo", checked: true, text: "Labels on every form control" },
        { id: "ax_t2", type: "todo", checked: false, text: "Keyboard order of the tabs" },
      ],
    },
    { documentId: doc },
  );
  expect(proposal.ok).toBe(true);
  const note = await agentCall(
    "mnote_artifact_create_ai_note",
    { content: "Checked with axe-core." },
    { documentId: doc, dryRun: false },
  );
  expect(note.ok).toBe(true);

  await page.goto("/signin");
  await expect(page.getByRole("heading", { name: "Sign in to the page-AI panel" })).toBeVisible();
  await expectNoViolations(page, "/signin");

  await signIn(page, "ada", { fresh: true });
  await expectNoViolations(page, "the home page");

  await openPage(page, doc);
  await expect(proposalCard(page, proposal.request.toolCallId)).toBeVisible();
  await expectNoViolations(page, "the Suggestions tab");
  // The reject form, with its reason's countdown, and the card's Details open.
  const card = proposalCard(page, proposal.request.toolCallId);
  await openDetails(card);
  await card.getByRole("button", { name: "Reject", exact: true }).click();
  await page.getByLabel(/^Why\?/).fill("Not this week");
  await expect(card.getByTestId("characters-left")).toHaveText("487 characters left");
  await expectNoViolations(page, "the reject form");
  await card.getByRole("button", { name: "Cancel" }).click();

  await panelTab(page, "Audit trail").click();
  await expect(page.locator("table.audit tbody tr").first()).toBeVisible();
  // Reads shown too, and one entry's Details open on its change record: every part of the history is checked.
  await page.getByRole("checkbox", { name: /^Show reads/ }).check();
  const withRecord = page
    .locator("table.audit tbody tr")
    .filter({ has: page.locator(".command-link") })
    .first();
  await openDetails(withRecord);
  await withRecord.locator(".command-link").click();
  await expect(page.locator(".command-detail")).toContainText("Change record: page version");
  await expectNoViolations(page, "the Audit trail tab");

  await panelTab(page, "Artifacts").click();
  await expect(page.locator('[data-kind="ai_note"]')).toContainText("Checked with axe-core.");
  await expectNoViolations(page, "the Artifacts tab");
});

test("settings, members, tokens, the policy switch, sign-in errors and every confirmation have no axe violations", async ({
  page,
}) => {
  test.setTimeout(60_000 + 9 * AXE_RUN_MS);
  // Sign-in with an error shown, and with a page to return to.
  await page.goto("/signin?error=token_agent&next=/agents");
  await expect(page.locator("main [role=alert]")).toContainText("That is an agent token");
  await expectNoViolations(page, "/signin with an error");

  await signIn(page, "ada", { fresh: true });
  await page.goto("/w/ws_demo/members");
  await expect(page.getByTestId("member").first()).toBeVisible();
  // The members page with a refusal beside Ada's row (the only owner), then the Remove confirmation (cancelled:
  // nothing changes).
  await page.getByLabel("Role of Ada").selectOption("viewer");
  await expect(page.getByTestId("member-problem")).toBeVisible();
  await expectNoViolations(page, "the members page with a refusal");
  await page.getByRole("button", { name: "Remove Ben" }).click();
  const removeDialog = page.getByRole("dialog", { name: "Remove Ben from Demo workspace?" });
  await expect(removeDialog).toBeVisible();
  await expectNoViolations(page, "the Remove confirmation");
  await removeDialog.getByRole("button", { name: "Cancel" }).click();
  await expect(removeDialog).toBeHidden();

  await page.goto("/agents");
  await page.getByLabel("Name").fill("axe check");
  await page.getByRole("button", { name: "Create agent token" }).click();
  await expect(page.getByTestId("agent-token-secret")).toBeVisible();
  await expectNoViolations(page, "Connect an agent with a new token shown");
  await page.getByRole("button", { name: "Revoke axe check" }).click();
  const revokeDialog = page.getByRole("dialog", { name: "Revoke “axe check”?" });
  await expect(revokeDialog).toBeVisible();
  await expectNoViolations(page, "the Revoke confirmation");
  await revokeDialog.getByRole("button", { name: "Revoke the token" }).click();
  await expect(page.getByTestId("agent-token").filter({ hasText: "axe check" })).toContainText("revoked");

  // The policy switch and its confirmation (cancelled: the demo workspace's policy holds for the other flows).
  await openPage(page, FLOW_PAGES.accessibility.id);
  await page.getByText("Policy history").click();
  await expectNoViolations(page, "the approval policy with its history open");
  await page.getByRole("checkbox", { name: "Agent edits wait for approval" }).click();
  const policyDialog = page.getByRole("dialog", { name: /^Let agent edits apply without approval/ });
  await expect(policyDialog).toBeVisible();
  await expectNoViolations(page, "the approval-off confirmation");
  await policyDialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("checkbox", { name: "Agent edits wait for approval" })).toBeChecked();

  // The same screens on a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ["/w/ws_demo/members", "/agents"]) {
    await page.goto(path);
    await expect(page.locator("h1")).toBeVisible();
    await expectNoViolations(page, `${path} at 390 px`);
  }
});
