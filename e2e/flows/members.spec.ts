import { mnote } from "../../scripts/stack.mjs";
import { e2eState, expect, signInAtProvider, test } from "./support";

/**
 * Issue 23 item 2 in Chromium: the demo workspace's owner, signed in through the identity provider, adds a
 * user by email, changes their role, is refused leaving the workspace without an owner, and removes them;
 * the operator's audit shows each change under her.
 */
test("an owner manages the workspace's members in the panel, with the CLI's rules and audit", async ({ page }) => {
  const env = { MNOTE_DATABASE_URL: e2eState().databaseUrl };
  const morgan = (await mnote(
    ["admin", "user", "create", "--name", "Morgan Quill", "--email", "morgan@example.com"],
    env,
  )) as {
    id: string;
  };
  await signInAtProvider(page, "ada");
  await page.getByRole("link", { name: "Members" }).first().click();
  await expect(page.getByRole("heading", { name: /^Members of/ })).toBeVisible();

  await page.getByLabel("Email").fill("MORGAN@example.com");
  await page.getByLabel("Role", { exact: true }).selectOption("editor");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  const row = page.getByTestId("member").filter({ hasText: "Morgan Quill" });
  await expect(row.getByLabel("Role of Morgan Quill")).toHaveValue("editor");

  await row.getByLabel("Role of Morgan Quill").selectOption("viewer");
  await expect(row.getByLabel("Role of Morgan Quill")).toHaveValue("viewer");
  await page.reload();
  await expect(
    page.getByTestId("member").filter({ hasText: "Morgan Quill" }).getByLabel("Role of Morgan Quill"),
  ).toHaveValue("viewer");

  // Ada is the workspace's only owner: the kernel's rule refuses, in its words.
  await page.getByLabel("Role of Ada").selectOption("viewer");
  await expect(page.locator("main [role=alert]")).toContainText("last owner");
  await page.getByLabel("Email").fill("nobody@example.com");
  await page.getByRole("button", { name: "Add", exact: true }).click();
  await expect(page.locator("main [role=alert]")).toContainText("no mnote user has the email nobody@example.com");

  await page.getByRole("button", { name: "Remove Morgan Quill" }).click();
  await expect(page.getByTestId("member").filter({ hasText: "Morgan Quill" })).toHaveCount(0);

  const audit = (await mnote(["audit", "--workspace", e2eState().workspaceId, "--limit", "1000"], env)) as Array<{
    identity: { toolName: string; actorId: string };
    detail: { userId?: string };
  }>;
  const changes = audit
    .filter((r) => r.detail?.userId === morgan.id)
    .map((r) => [r.identity.toolName, r.identity.actorId]);
  expect(changes.reverse()).toEqual([
    ["admin.member.add", "user_ada"],
    ["admin.member.role", "user_ada"],
    ["admin.member.remove", "user_ada"],
  ]);
  const members = (await mnote(["admin", "member", "list", "--workspace", e2eState().workspaceId], env)) as Array<{
    userId: string;
    role: string;
  }>;
  expect(members.find((m) => m.userId === "user_ada")?.role).toBe("owner");
});
