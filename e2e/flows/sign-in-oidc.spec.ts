import type { Page } from "@playwright/test";
import { mnote } from "../../scripts/stack.mjs";
import { e2eState, expect, signInAtProvider, test } from "./support";

/**
 * Issue 23 item 1 in Chromium: a person signs in through the team's identity provider (a real oidc-provider,
 * its own login and consent pages), is found by the verified email, signs out; a callback works once; an
 * unknown or unverified email is told so and nothing is created; a user an operator removes is out at once.
 */
/** The sign-in page's message (Next's route announcer is an alert too). */
const signInError = (page: Page) => page.locator("main [role=alert]");

const users = async () =>
  (await mnote(["admin", "user", "list"], { MNOTE_DATABASE_URL: e2eState().databaseUrl })) as Array<{
    id: string;
    email: string | null;
  }>;

test("a person signs in through the identity provider, found by the verified email, and signs out", async ({
  page,
}) => {
  const callbacks: string[] = [];
  const env = { MNOTE_DATABASE_URL: e2eState().databaseUrl };
  type Listed = Array<{ id: string; label: string; revokedAt: string | null }>;
  const earlier = new Set(
    ((await mnote(["admin", "token", "list", "--user", "user_ada"], env)) as Listed).map((token) => token.id),
  );
  page.on("request", (request) => {
    if (request.url().includes("/api/auth/oidc/callback")) callbacks.push(request.url());
  });
  await signInAtProvider(page, "ada");
  await expect(page.getByText("Signed in as")).toContainText("Ada");
  await expect(page.getByRole("heading", { name: "Your pages" })).toBeVisible();
  expect(callbacks).toHaveLength(1);
  expect(new URL(callbacks[0]!).searchParams.get("code")).toBeTruthy();

  // The same callback again (a replayed state and code): refused, and no second session.
  await page.goto(callbacks[0]!);
  await expect(signInError(page)).toContainText("already used or has expired");

  await page.goto("/");
  await expect(page.getByText("Signed in as")).toContainText("Ada");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  // The session's token is revoked, not only forgotten by this browser.
  const sessions = (await mnote(["admin", "token", "list", "--user", "user_ada"], env)) as Listed;
  const opened = sessions.filter((token) => !earlier.has(token.id));
  expect(opened[0]?.label).toBe("panel sign-in (identity provider)");
  expect(opened).toHaveLength(1);
  expect(opened.every((token) => token.revokedAt !== null)).toBe(true);
  await page.goto("/");
  await expect(page).toHaveURL(/\/signin$/);
});

test("an email no user has, and an unverified one, are refused with a page that says so; nothing is created", async ({
  page,
}) => {
  const before = await users();
  await signInAtProvider(page, "stranger");
  await expect(signInError(page)).toContainText("no one in mnote has that email");
  await expect(signInError(page)).toContainText("Nothing was created");
  await page.context().clearCookies();
  // Ada's address, but the provider has not verified it: no one.
  await signInAtProvider(page, "unverified");
  await expect(signInError(page)).toContainText("has not verified your email");
  expect(await users()).toEqual(before);
});

test("a user an operator removes is refused on the next request", async ({ page }) => {
  const env = { MNOTE_DATABASE_URL: e2eState().databaseUrl };
  const leaver = (await mnote(
    ["admin", "user", "create", "--name", "Leaver", "--email", "leaver@example.com"],
    env,
  )) as {
    id: string;
  };
  await signInAtProvider(page, "leaver");
  await expect(page.getByText("Signed in as")).toContainText("Leaver");
  await mnote(["admin", "user", "remove", "--id", leaver.id], env);
  await page.reload();
  await expect(page).toHaveURL(/\/signin$/);
});

test("the token sign-in stays beside the provider's button", async ({ page }) => {
  await page.goto("/signin");
  await page.getByLabel("Person token").fill(e2eState().credentials.ben.person);
  await page.getByRole("button", { name: "Sign in with token" }).click();
  await expect(page.getByText("Signed in as")).toContainText("Ben");
});
