import { mnote } from "../../scripts/stack.mjs";
import { e2eState, expect, test } from "./support";

/**
 * Issue 36, sign-in and settings in Chromium: a page opened while signed out is where the sign-in lands (only a page
 * of the panel: no open redirect); a token that does not sign in says why, truly, each reason its own words; the
 * panel has a favicon; the approval policy says it is the whole workspace's and asks before turning approval off.
 */
const FORM = "application/x-www-form-urlencoded";
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

test("a page opened while signed out is where the sign-in lands, by the demo picker or a token", async ({ page }) => {
  const { credentials } = e2eState();
  await page.goto("/w/ws_demo/p/doc_plan");
  await expect(page).toHaveURL(/\/signin\?next=\/w\/ws_demo\/p\/doc_plan$/);
  await page.getByLabel("User", { exact: true }).selectOption("user_ben");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/w/ws_demo/p/doc_plan");
  await expect(page.getByTestId("page-revision")).toBeVisible();

  // Signed out again, the agents page: a wrong token keeps where the person was going, the right one lands there.
  await page.context().clearCookies();
  await page.goto("/agents");
  await expect(page).toHaveURL(/\/signin\?next=\/agents$/);
  await page.getByLabel("Person token").fill("mnt_not_a_real_one");
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.locator("main [role=alert]")).toContainText("mnote does not know that token");
  await expect(page).toHaveURL(/\/signin\?error=token_unknown&next=\/agents$/);
  await page.getByLabel("Person token").fill(credentials.ben.person);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await page.waitForURL((url) => url.pathname === "/agents");
  await expect(page.getByRole("heading", { name: "Connect an agent" })).toBeVisible();
});

test("a return path that leaves the panel is ignored: the sign-in lands home", async ({ page, request }) => {
  const { webUrl, credentials } = e2eState();
  for (const next of ["//evil.example/w/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)"]) {
    // The page carries no such return path in its forms...
    await page.goto(`/signin?next=${encodeURIComponent(next)}`);
    await expect(page.locator('input[name="next"]')).toHaveCount(0);
    // ...and the server, sent one anyway, goes home.
    const answer = await request.post(`${webUrl}/api/session`, {
      data: form({ token: credentials.cy.person, next }),
      headers: { "content-type": FORM, origin: webUrl },
      maxRedirects: 0,
    });
    const body = await answer.text();
    expect(body, next).toContain('content="0;url=/"');
    expect(body).not.toContain("evil");
  }
  await page.goto("/signin?next=//evil.example");
  await page.getByLabel("User", { exact: true }).selectOption("user_cy");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/");
  expect(new URL(page.url()).host).toBe(new URL(webUrl).host);
});

test("a token that does not sign in says why: not a token, unknown, revoked, or an agent's", async ({ page }) => {
  // Two CLI processes and four sign-in round trips: a run on a busy 2-core machine took 52 s of the default minute.
  test.setTimeout(120_000);
  const { databaseUrl, credentials } = e2eState();
  const env = { MNOTE_DATABASE_URL: databaseUrl };
  const revoked = (await mnote(
    ["admin", "token", "create", "--user", "user_cy", "--holder", "person", "--scopes", "page.read"],
    env,
  )) as { token: string; id: string };
  await mnote(["admin", "token", "revoke", "--id", revoked.id], env);
  const said: string[] = [];
  for (const [token, words] of [
    ["hello", /^That is not an mnote token: an mnote token starts with mnt_\./],
    ["mnt_made_up", /^mnote does not know that token\./],
    [revoked.token, /^That token was revoked/],
    [credentials.cy.agent, /^That is an agent token: it lets software such as Hermes act for you/],
  ] as const) {
    await page.goto("/signin");
    await page.getByLabel("Person token").fill(token);
    await page.getByRole("button", { name: "Sign in with token" }).click();
    const alert = page.locator("main [role=alert]");
    await expect(alert).toHaveText(words);
    said.push((await alert.textContent())!);
    // Words for a person: no command, no setting.
    await expect(alert).not.toContainText("mnote admin");
    expect((await page.context().cookies()).filter((c) => c.name === "mnote_session")).toEqual([]);
  }
  expect(new Set(said).size).toBe(4);
});

test("the demo picker says what it does in words, and the panel has a favicon", async ({ page, request }) => {
  await page.goto("/signin");
  const demo = page.getByRole("region", { name: "Demo users" });
  await expect(demo).toContainText("This is a demo: pick who you want to be, no password needed.");
  await expect(demo).not.toContainText("person token");
  await expect(demo.getByRole("option", { name: "Ada" })).toHaveCount(1);
  const icon = await request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
  expect((await icon.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
});

test("the approval policy is the workspace's: it says so, and turning approval off asks first (on does not)", async ({
  page,
}) => {
  // Dee's own workspace: no other flow depends on its policy.
  await page.goto("/signin");
  await page.getByLabel("User", { exact: true }).selectOption("user_dee");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await page.goto("/w/ws_other/p/doc_other");
  const policy = page.getByRole("group", { name: "For every page of Dee's workspace" });
  const approval = policy.getByRole("checkbox", { name: "Agent edits wait for approval" });
  await expect(approval).toBeChecked();

  await approval.click();
  const dialog = page.getByRole("dialog", { name: "Let agent edits apply without approval in Dee's workspace?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("every page of Dee's workspace, not only this one");
  // Focus starts on Cancel: Enter never confirms by accident.
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(approval).toBeChecked();
  await expect(approval).toBeFocused();

  await approval.click();
  await dialog.getByRole("button", { name: "Let edits apply directly" }).click();
  await expect(approval).not.toBeChecked();
  await page.reload();
  await expect(approval).not.toBeChecked();

  // Turning it on again asks nothing.
  await approval.click();
  await expect(approval).toBeChecked();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.getByText("Policy history").click();
  await expect(page.getByTestId("policy-change").first()).toContainText(
    /^(just now|\d+ seconds? ago)\s*Dee: agent edits apply directly → agent edits wait for approval$/,
  );
});
