import { agentCall, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

test("an owner holds agents' AI notes too: the note waits as a proposal, and the change is in the policy history", async ({
  page,
}) => {
  const doc = FLOW_PAGES.holdArtifacts.id;
  await signIn(page, "ada");
  await openPage(page, doc);
  const holdArtifacts = page.getByRole("checkbox", { name: "Summaries and AI notes wait too" });
  await expect(holdArtifacts).not.toBeChecked();
  // A controlled box: it turns checked when the server has the new policy (so click, then wait).
  await holdArtifacts.click();
  await expect(holdArtifacts).toBeChecked();
  try {
    const held = await agentCall(
      "mnote_artifact_create_ai_note",
      { content: "Notes copied from the roadmap" },
      {
        documentId: doc,
        dryRun: false,
      },
    );
    expect(held).toMatchObject({ ok: false, error: { code: "mnote_tool_approval_required" } });
    // The held note shows up among the proposals by itself, like a held page write.
    await expect(proposalCard(page, held.request.toolCallId)).toBeVisible();

    await page.getByText("Policy history").click();
    await expect(page.getByTestId("policy-change").first()).toContainText(
      "agent edits wait for approval → agent edits, summaries and AI notes wait for approval",
    );
  } finally {
    // The flows share one workspace: put the policy back for the ones after this.
    await holdArtifacts.click();
    await expect(holdArtifacts).not.toBeChecked();
  }
});
