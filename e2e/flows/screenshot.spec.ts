import { copyFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

const shot = (name: string) => ({
  artifact: fileURLToPath(new URL(`../test-results/${name}`, import.meta.url)),
  readme: fileURLToPath(new URL(`../../docs/images/${name}`, import.meta.url)),
});

/** Saves a screenshot under test-results, and over the README's copy when MNOTE_UPDATE_SCREENSHOT=1. */
async function save(page: import("@playwright/test").Page, name: string, fullPage = true) {
  const { artifact, readme } = shot(name);
  await mkdir(dirname(artifact), { recursive: true });
  await page.screenshot({ path: artifact, fullPage, animations: "disabled" });
  if (process.env.MNOTE_UPDATE_SCREENSHOT === "1") {
    await mkdir(dirname(readme), { recursive: true });
    await copyFile(artifact, readme);
  }
}

test("screenshot: the panel with a pending page.save proposal (inserted, deleted, changed blocks)", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 860 });
  const doc = FLOW_PAGES.screenshot.id;
  await signIn(page, "ada");
  await openPage(page, doc);

  const proposal = await agentCall(
    "mnote_page_save",
    {
      content: [
        { id: "og_h1", type: "heading", level: 1, text: "Your first week" },
        {
          id: "og_p1",
          type: "paragraph",
          text: "Welcome! This guide walks you through your first two weeks, step by step.",
        },
        { id: "og_h2", type: "heading", level: 2, text: "Day one" },
        { id: "og_t1", type: "todo", checked: true, text: "Get your laptop from IT" },
        { id: "og_t3", type: "todo", checked: true, text: "Meet your buddy for coffee" },
        { id: "og_t4", type: "todo", checked: false, text: "Set up the mnote CLI and the Hermes bridge" },
        { id: "og_q1", type: "quote", text: "Ask early, ask often." },
      ],
    },
    { documentId: doc, runId: "run_onboarding" },
  );
  expect(proposal.ok).toBe(true);

  const card = proposalCard(page, proposal.request.toolCallId);
  for (const kind of ["insert", "delete", "update"])
    await expect(card.locator(`li.change[data-kind="${kind}"]`).first()).toBeVisible();
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  await page.mouse.move(0, 0);

  // A todo ticked: its attribute change reads ☐ → ☑ in the diff.
  await expect(card.locator('.attr-change[data-attribute="todo"]')).toBeVisible();
  await save(page, "panel.png");

  // The same proposal on a phone: the pending bar on top, the review first.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId("pending-bar").click();
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeInViewport();
  await save(page, "panel-phone.png", false);
});

test("screenshot: Members and Connect an agent, at 1440 px and on a 390 px phone", async ({ page }) => {
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.setViewportSize({ width: 1440, height: 860 });
  await signIn(page, "ada");
  await page.goto("/w/ws_demo/members");
  await expect(page.getByRole("heading", { name: "Members of Demo workspace" })).toBeVisible();
  await expect(page.getByTestId("member").first()).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  await save(page, "members-phone.png");
  // At full width, Remove asking first (cancelled after the picture: nobody is removed).
  await page.setViewportSize({ width: 1440, height: 860 });
  await page.getByRole("button", { name: "Remove Ben" }).click();
  const dialog = page.getByRole("dialog", { name: "Remove Ben from Demo workspace?" });
  await expect(dialog).toBeVisible();
  await save(page, "members.png", false);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();

  await page.setViewportSize({ width: 1440, height: 860 });
  await page.goto("/agents");
  await page.getByLabel("Name").fill("Hermes on my laptop");
  await page.getByRole("button", { name: "Create agent token" }).click();
  await page.getByRole("button", { name: "Copy the agent token" }).click();
  await expect(page.getByTestId("copy-status")).toHaveText("Copied the agent token to the clipboard.");
  await expect(page.getByTestId("agent-token").first().locator("time").first()).toHaveText(/ago|just now/);
  await page.mouse.move(0, 0);
  await save(page, "connect-agent.png");
  await page.setViewportSize({ width: 390, height: 844 });
  await save(page, "connect-agent-phone.png");
});
