import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, mnote, startStack } from "../../scripts/stack.mjs";
import { type HermesStandIn, startHermesStandIn } from "../hermes-standin/start";
import { DEMO_USER_IDS, expect, openPage, test } from "./support";

/**
 * Issue 35: "Ask Hermes" against Hermes 0.21 as its stand-in answers (e2e/hermes-standin, `--hermes 0.21`: the API
 * server of 0.21.3), served as one profile of a multiplexed gateway (`/p/work/…`, so the panel's MNOTE_HERMES_URL
 * carries the path) with Hermes's default tool search on (the model sees tool_search / tool_describe / tool_call).
 * Its own stack on a SQLite file, so the main flows' stand-in (0.18 by default) is untouched.
 */
test.describe.configure({ mode: "serial" });

let stop: (() => Promise<void>) | null = null;
let webUrl = "";
let hermes: HermesStandIn | null = null;
const HERMES_KEY = randomBytes(24).toString("hex");

const standIn = async (path: string, method = "GET") =>
  (await (
    await fetch(`${hermes!.url}${path}`, { method, headers: { authorization: `Bearer ${HERMES_KEY}` } })
  ).json()) as { runs_started: number; idempotency_keys: number };

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const dir = await mkdtemp(join(tmpdir(), "mnote-ask021-"));
  const env = { MNOTE_DATABASE_URL: `file:${join(dir, "mnote.db")}` };
  await mnote(["init"], env);
  const demo = await mnote(["demo"], env);
  const hermesPort = await freePort();
  const stack = await startStack({
    databaseUrl: env.MNOTE_DATABASE_URL,
    devSignInUsers: Object.values(DEMO_USER_IDS),
    quiet: true,
    webEnv: { MNOTE_HERMES_URL: `http://127.0.0.1:${hermesPort}/p/work`, MNOTE_HERMES_API_KEY: HERMES_KEY },
  });
  hermes = await startHermesStandIn({
    port: hermesPort,
    key: HERMES_KEY,
    bridgeUrl: stack.bridgeUrl,
    token: demo.credentials.ada.agent,
    hermesVersion: "0.21",
    profile: "work",
  });
  webUrl = stack.webUrl;
  stop = async () => {
    await Promise.all([stack.stop(), hermes?.stop()]);
    await rm(dir, { recursive: true, force: true });
  };
});

test.afterAll(async () => {
  await stop?.();
});

async function signedInOnPlan(browser: import("@playwright/test").Browser) {
  const context = await browser.newContext({ baseURL: webUrl });
  const page = await context.newPage();
  // Signed in here, not with support's signIn: its cached cookies are the main stack's.
  await page.goto("/signin");
  await page.getByLabel("User", { exact: true }).selectOption(DEMO_USER_IDS.ada);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await openPage(page, "doc_plan", "ws_demo");
  return { context, page, box: page.getByRole("region", { name: "Ask Hermes" }) };
}

test("behind 0.21's tool search, at a profile's path, Hermes proposes the line; lookups are no calls of the run", async ({
  browser,
}) => {
  const { context, page, box } = await signedInOnPlan(browser);
  await box.getByLabel("Ask Hermes about this page").fill('add a line to the plan: "Check the vendor contract"');
  await box.getByRole("button", { name: /^Ask/ }).click();
  const run = page.getByTestId("ask-hermes-run");
  await expect(run.getByTestId("ask-hermes-answer")).toContainText(
    'I proposed adding "Check the vendor contract" at the end of',
  );
  await expect(run).toHaveAttribute("data-phase", "completed");
  // The model loaded the schemas with tool_describe and called through tool_call: the box lists the two mnote
  // calls it made, under their own names (Hermes names the unwrapped tool), not the lookup.
  const calls = run.getByTestId("ask-hermes-call");
  await expect(calls).toHaveCount(2);
  await expect(calls.nth(0)).toHaveAttribute("data-tool", "mnote_page_get");
  await expect(calls.nth(1)).toHaveAttribute("data-tool", "mnote_page_edit");
  await expect(page.locator('[data-proposal-id][data-tool="mnote.page.edit"]')).toContainText(
    "Check the vendor contract",
  );
  await context.close();
});

test("a follow-up sent twice at once with one key is one run in Hermes (its Idempotency-Key), answered twice", async ({
  browser,
}) => {
  const { context, page, box } = await signedInOnPlan(browser);
  // A first question, for the conversation's session id (a follow-up's body is the same on every retry: 0.21
  // loads the conversation from the session, so the panel sends no history that could differ).
  await box.getByLabel("Ask Hermes about this page").fill("What did I ask?");
  await box.getByRole("button", { name: /^Ask/ }).click();
  await expect(page.getByTestId("ask-hermes-run")).toHaveAttribute("data-phase", "completed");
  // The panel keeps the conversation's session id in the tab (it asks through the router, not /api/hermes/runs).
  const sessionId = await page.evaluate(() => sessionStorage.getItem("mnote.hermes.session.doc_plan"));
  expect(sessionId).toBeTruthy();
  const before = await standIn("/standin/stats");
  const startKey = `retry_${randomBytes(6).toString("hex")}`;
  const [first, second] = await page.evaluate(
    async ({ key, session }) => {
      const start = () =>
        fetch("/api/hermes/runs", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            workspaceId: "ws_demo",
            documentId: "doc_plan",
            input: "What did I ask then?",
            sessionId: session,
            startKey: key,
          }),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { runId: string } }));
      return Promise.all([start(), start()]);
    },
    { key: startKey, session: sessionId },
  );
  expect([first.status, second.status]).toEqual([202, 202]);
  expect(second.body.runId).toBe(first.body.runId);
  const after = await standIn("/standin/stats");
  // The two starts race: the second reaches Hermes with the key (Hermes replays the run: 202 Idempotency-Replayed),
  // or finds the first already recorded (the panel's own replay). Either way exactly one run in Hermes; Hermes's
  // replay itself is checked deterministically in packages/hermes-runs/src/hermes-021.test.ts.
  expect(after.runs_started - before.runs_started).toBe(1);
  expect(after.idempotency_keys - before.idempotency_keys).toBeGreaterThanOrEqual(1);
  await context.close();
});

test("steer: words added while Hermes works show in the answer, and the answer takes them in", async ({ browser }) => {
  const { context, page, box } = await signedInOnPlan(browser);
  await box.getByLabel("Ask Hermes about this page").fill("wait and think about the plan");
  await box.getByRole("button", { name: /^Ask/ }).click();
  const run = page.getByTestId("ask-hermes-run");
  await expect(run.getByTestId("ask-hermes-answer")).toContainText("Let me think");
  await box.getByLabel("Ask Hermes about this page").fill("also mention the budget");
  await box.getByTestId("ask-hermes-steer").click();
  await expect(run.getByTestId("ask-hermes-answer")).toContainText("> also mention the budget");
  await expect(run).toHaveAttribute("data-phase", "completed", { timeout: 20_000 });
  await expect(run.getByTestId("ask-hermes-answer")).toContainText(
    "I thought about it, and about what you added: also mention the budget",
  );
  await context.close();
});

test("a run orphaned by a restart of Hermes ends the box as interrupted, with what to do", async ({ browser }) => {
  const { context, page, box } = await signedInOnPlan(browser);
  await box.getByLabel("Ask Hermes about this page").fill("wait and think about the plan");
  await box.getByRole("button", { name: /^Ask/ }).click();
  const run = page.getByTestId("ask-hermes-run");
  await expect(run.getByTestId("ask-hermes-answer")).toContainText("Let me think");
  await standIn("/standin/restart", "POST");
  await expect(run).toHaveAttribute("data-phase", "lost", { timeout: 20_000 });
  await expect(page.getByTestId("ask-hermes-message")).toContainText("Hermes restarted while answering");
  await context.close();
});
