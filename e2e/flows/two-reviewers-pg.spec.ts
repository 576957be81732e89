import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { freePort, mnote, ROOT, startStack } from "../../scripts/stack.mjs";
import { DEMO_USER_IDS, expect, openPage, test } from "./support";

/**
 * Issue 32 item 2: decisions live on the server and reach every open panel. Two reviewers on two panel processes
 * on one PostgreSQL: Ada accepts one change of a proposal on panel A; Ben's panel B shows it decided (pushed, no
 * reload) and Ben rejects the other; Ada's panel shows the proposal done. Skipped when no PostgreSQL answers.
 */
const PG = process.env.MNOTE_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const pgAnswers = () =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(PG).port || 5432), new URL(PG).hostname);
    socket.setTimeout(1000);
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });

test.describe.configure({ mode: "serial" });

const DOC = "doc_two_reviewers";
let setup: {
  panels: [string, string];
  bridgeUrl: string;
  agentToken: string;
  stop: () => Promise<void>;
} | null = null;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  if (!(await pgAnswers())) return;
  // Named as the kernel's test schemas are, so a leftover one is swept by the next kernel test run.
  const url = new URL(PG);
  url.searchParams.set("schema", `mnote_review2_${process.pid}_${randomBytes(5).toString("hex")}`);
  const env = { MNOTE_DATABASE_URL: url.toString() };
  await mnote(["init"], env);
  const demo = (await mnote(["demo"], env)) as {
    workspaceId: string;
    credentials: Record<string, { agent: string; person: string }>;
  };
  const dir = await mkdtemp(join(tmpdir(), "mnote-review2-"));
  const blocksFile = join(dir, "blocks.json");
  const blocks = ["Revenue up 12%.", "Costs flat."].map((text, i) => ({
    id: `tr_p${i + 1}`,
    type: "paragraph",
    text,
  }));
  await writeFile(blocksFile, JSON.stringify(blocks));
  await mnote(
    [
      "admin",
      "page",
      "create",
      "--workspace",
      demo.workspaceId,
      "--title",
      "Numbers",
      "--created-by",
      "user_ada",
    ].concat(["--blocks-file", blocksFile, "--id", DOC]),
    env,
  );
  const devSignInUsers = Object.values(DEMO_USER_IDS);
  const stack = await startStack({ databaseUrl: env.MNOTE_DATABASE_URL, devSignInUsers, quiet: true });
  const secondPort = await freePort();
  const second: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, "apps/web/node_modules/next/dist/bin/next"), "start", "-p", String(secondPort), "-H", "127.0.0.1"],
    {
      cwd: join(ROOT, "apps/web"),
      env: {
        ...process.env,
        ...env,
        MNOTE_DEV_SIGNIN_USERS: devSignInUsers.join(","),
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const secondUrl = `http://127.0.0.1:${secondPort}`;
  for (let i = 0; i < 120; i++) {
    const up = await fetch(`${secondUrl}/signin`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  setup = {
    panels: [stack.webUrl, secondUrl],
    bridgeUrl: stack.bridgeUrl,
    agentToken: demo.credentials.ada!.agent,
    stop: async () => {
      second.kill("SIGTERM");
      await stack.stop();
    },
  };
});

test.afterAll(async () => {
  await setup?.stop();
});

/** Ada's agent proposes (a dry run) through this stack's bridge, as the Hermes plugin sends it. */
async function propose(bridgeUrl: string, token: string, args: Record<string, unknown>) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const me = (await (await fetch(`${bridgeUrl}/v1/whoami`, { headers })).json()) as {
    actorId: string;
    capabilityScope: string[];
  };
  const envelope = {
    toolName: "mnote.page.edit",
    workspaceId: "ws_demo",
    documentId: DOC,
    actorId: me.actorId,
    sessionId: "session_two_reviewers",
    runId: `run_${randomUUID().slice(0, 8)}`,
    toolCallId: `hermes_${randomUUID().replace(/-/g, "")}`,
    traceId: randomUUID().replace(/-/g, ""),
    capabilityScope: me.capabilityScope,
    idempotencyKey: `hermes_${randomUUID().replace(/-/g, "")}`,
    dryRun: true,
    args,
  };
  const response = await fetch(`${bridgeUrl}/v1/tools/mnote_page_edit`, {
    method: "POST",
    headers,
    body: JSON.stringify(envelope),
  });
  return (await response.json()) as { ok: boolean };
}

/** A reviewer in a browser of their own, signed in on one panel process. */
async function reviewer(browser: Browser, baseURL: string, user: string): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto("/signin");
  await page.getByLabel("User", { exact: true }).selectOption(user);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((u) => u.pathname === "/");
  await openPage(page, DOC, "ws_demo");
  return page;
}

test("two reviewers on two panel processes (PostgreSQL) decide one proposal's changes and see each other's", async ({
  browser,
}) => {
  test.skip(!setup, "no PostgreSQL at 127.0.0.1:5432");
  const { panels, bridgeUrl, agentToken } = setup!;
  const proposal = await propose(bridgeUrl, agentToken, {
    operations: [
      { op: "replace", blockId: "tr_p1", text: "Revenue up 14%." },
      { op: "replace", blockId: "tr_p2", text: "Costs down 1%." },
    ],
  });
  expect(proposal.ok).toBe(true);
  const ada = await reviewer(browser, panels[0], DEMO_USER_IDS.ada);
  const ben = await reviewer(browser, panels[1], DEMO_USER_IDS.ben);
  const suggestion = (page: Page, block: string) =>
    page.getByTestId("in-page-review").locator(`.suggestion[data-block-id="${block}"]`);
  await expect(suggestion(ben, "tr_p1")).toBeVisible();

  // Ada accepts the revenue change on panel A: panel B hears it, without a reload.
  await suggestion(ada, "tr_p1")
    .getByRole("button", { name: /^Accept: / })
    .click();
  await expect(ada.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(ben.getByTestId("page-revision")).toHaveText("Revision 2");
  await expect(suggestion(ben, "tr_p1")).toHaveCount(0);
  await expect(ben.getByTestId("decided-so-far")).toHaveText("1 of 2 decided");

  // Ben rejects the other on panel B: the proposal is done on panel A too, nothing more written.
  await suggestion(ben, "tr_p2")
    .getByRole("button", { name: /^Reject: / })
    .click();
  await expect(ada.getByTestId("in-page-review")).toHaveCount(0);
  await expect(ada.getByText("0 pending", { exact: true })).toBeVisible();
  await expect(ada.getByTestId("page-revision")).toHaveText("Revision 2");
  await ada.getByLabel("Show applied and rejected").check();
  await ada.getByRole("button", { name: /^Show 2 changes/ }).click();
  await expect(ada.locator('li.change[data-change="0"] [data-testid="change-state"]')).toHaveText("applied by Ada");
  await expect(ada.locator('li.change[data-change="1"] [data-testid="change-state"]')).toContainText("rejected by Ben");
  await ada.context().close();
  await ben.context().close();
});
