import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort, mnote, ROOT, startStack } from "../../scripts/stack.mjs";
import { startHermesStandIn } from "../hermes-standin/start";
import { roundRobinProxy } from "./round-robin";
import { DEMO_USER_IDS, expect, openPage, test } from "./support";

/**
 * Issue 19, item 5: a run on any panel instance. Two panel processes on one PostgreSQL behind a round-robin
 * balancer (no sticky sessions): a question asked through it, a reload mid-run, and Stop, each landing on
 * whichever instance the balancer picks. Skipped when no PostgreSQL answers (as the kernel's PostgreSQL suites are).
 */
/** The kernel tests' server (MNOTE_TEST_POSTGRES_URL, packages/kernel/src/test-databases.ts). */
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

let stop: (() => Promise<void>) | null = null;
let proxy: Awaited<ReturnType<typeof roundRobinProxy>> | null = null;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  if (!(await pgAnswers())) return;
  // Named as the kernel's test schemas are, so a leftover one is swept by the next kernel test run.
  const url = new URL(PG);
  url.searchParams.set("schema", `mnote_askrr_${process.pid}_${randomBytes(5).toString("hex")}`);
  const databaseUrl = url.toString();
  const env = { MNOTE_DATABASE_URL: databaseUrl };
  await mnote(["init"], env);
  const demo = await mnote(["demo"], env);
  const hermesPort = await freePort();
  const key = randomBytes(24).toString("hex");
  const webEnv = { MNOTE_HERMES_URL: `http://127.0.0.1:${hermesPort}`, MNOTE_HERMES_API_KEY: key };
  const devSignInUsers = Object.values(DEMO_USER_IDS);
  const stack = await startStack({ databaseUrl, devSignInUsers, quiet: true, webEnv });
  const secondPort = await freePort();
  const second: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, "apps/web/node_modules/next/dist/bin/next"), "start", "-p", String(secondPort), "-H", "127.0.0.1"],
    {
      cwd: join(ROOT, "apps/web"),
      env: {
        ...process.env,
        ...env,
        ...webEnv,
        MNOTE_DEV_SIGNIN_USERS: devSignInUsers.join(","),
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const hermes = await startHermesStandIn({
    port: hermesPort,
    key,
    bridgeUrl: stack.bridgeUrl,
    token: demo.credentials.ada.agent,
  });
  for (let i = 0; i < 120; i++) {
    const up = await fetch(`http://127.0.0.1:${secondPort}/signin`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  proxy = await roundRobinProxy([Number(new URL(stack.webUrl).port), secondPort]);
  stop = async () => {
    second.kill("SIGTERM");
    await Promise.all([stack.stop(), hermes.stop(), proxy?.close()]);
  };
});

test.afterAll(async () => {
  await stop?.();
});

test("a run asked through a round-robin balancer streams, survives a reload and stops from whichever instance", async ({
  browser,
}) => {
  test.skip(!proxy, "no PostgreSQL at 127.0.0.1:5432");
  const context = await browser.newContext({ baseURL: proxy!.url });
  const page = await context.newPage();
  // Signed in here, not with support's signIn: its cached cookies are the main stack's.
  await page.goto("/signin");
  await page.getByLabel("User", { exact: true }).selectOption(DEMO_USER_IDS.ada);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await openPage(page, "doc_plan", "ws_demo");
  const box = page.getByRole("region", { name: "Ask Hermes" });
  await box.getByLabel("Ask Hermes about this page").fill("wait and think about the plan");
  await box.getByRole("button", { name: /^Ask/ }).click();
  const run = page.getByTestId("ask-hermes-run");
  await expect(run.getByTestId("ask-hermes-answer")).toContainText("Let me think");
  await expect(run).toHaveAttribute("data-phase", "running");

  // A reload mid-run: the page and the run's lines come from whichever instance; the run goes on.
  await page.reload();
  await expect(page.getByTestId("ask-hermes-run")).toHaveAttribute("data-phase", "running");
  await expect(page.getByTestId("ask-hermes-answer")).toContainText("Let me think");

  // Stop, on whichever instance the balancer sends it to: the run ends as stopped.
  await box.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByTestId("ask-hermes-run")).toHaveAttribute("data-phase", "stopped", { timeout: 20_000 });
  await expect(page.getByTestId("ask-hermes-message")).toHaveText(/^Stopped\./);
  // Both instances served the flow.
  expect(Math.min(...proxy!.served)).toBeGreaterThan(3);
  await context.close();
});
