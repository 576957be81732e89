import { createHash, randomUUID } from "node:crypto";
import { test as base, type Cookie, expect, type Locator, type Page } from "@playwright/test";
import {
  type Capability,
  canonicalToolName,
  type InputEnvelope,
  isWriteTool,
  type OutputEnvelope,
  type ProviderToolName,
  type ToolName,
  toProviderName,
} from "@mnote/contract";
import { DEMO_USER_IDS, type DemoUserKey, e2eState } from "./state";

export { expect };
export { e2eState };

/** Every flow's `page` talks to the panel the global setup started. */
export const test = base.extend<{ cspViolations: string[] }>({
  // Playwright reads a fixture's dependencies from its first parameter, which must be an object pattern.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, use) => use(e2eState().webUrl),
  /**
   * Every flow runs under the panel's Content-Security-Policy (issue 31, finding 3) and fails on any violation
   * Chromium reports in the console: a script, style or request the policy refused is a panel that does not fully
   * work. A flow that provokes one on purpose reads (and empties) the list.
   */
  cspViolations: [
    async ({ page }, use) => {
      const violations: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await use(violations);
      expect(violations, "Content-Security-Policy violations in the console").toEqual([]);
    },
    { auto: true },
  ],
});

export { DEMO_USER_IDS };

/** A contract tool in either spelling (`mnote_page_save`, `mnote.page.save`): the compiler refuses any other name. */
export type AgentToolName = ToolName | ProviderToolName;

/** JSON with sorted keys, as the Hermes plugin's `canonical_json`. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

export interface AgentCallOptions {
  /** The page a page tool acts on; left out for a workspace tool (mnote.workspace.search), whose envelope has none. */
  documentId?: string;
  workspaceId?: string;
  /** Whose token acts (default Ada). */
  user?: DemoUserKey;
  /** An agent token as Hermes holds (default), or a person token (which the bridge refuses). */
  holder?: "agent" | "person";
  /** Writes only; default true: agents propose, people decide. */
  dryRun?: boolean;
  /** Writes only; default: one key per call (from its session, its own fresh run, the tool and the arguments). */
  idempotencyKey?: string;
  sessionId?: string;
  runId?: string;
  toolCallId?: string;
  traceId?: string;
}

/** An envelope as an agent sends it: a page tool's names its page, a workspace tool's names none. */
export type AgentEnvelope = Omit<InputEnvelope, "documentId"> & { documentId?: string };

export type AgentResult<R = unknown> = OutputEnvelope<R> & {
  /** The envelope that was sent (for retries with the same key). */
  request: AgentEnvelope;
  httpStatus: number;
};

const identities = new Map<string, { actorId: string; capabilityScope: Capability[] }>();

/** GET /v1/whoami once per token, as the plugin does: actorId and capabilityScope come from the token. */
async function whoami(token: string) {
  const known = identities.get(token);
  if (known) return known;
  const response = await fetch(`${e2eState().bridgeUrl}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`whoami answered HTTP ${response.status}: ${await response.text()}`);
  const identity = (await response.json()) as { actorId: string; capabilityScope: Capability[] };
  identities.set(token, identity);
  return identity;
}

/** One Hermes process: one session id for every call a flow makes unless it says otherwise. */
const PROCESS_SESSION_ID = `hermes_session_${randomUUID().replace(/-/g, "")}`;

/**
 * POST one tool call to the bridge exactly as the Hermes plugin builds it: the model's page
 * fields and args, sessionId/runId from the Hermes run, a fresh toolCallId and W3C trace id,
 * a key that names this one call for writes, and actorId/capabilityScope of the token.
 */
export async function agentCall<R = unknown>(
  tool: AgentToolName,
  args: Record<string, unknown>,
  opts: AgentCallOptions,
): Promise<AgentResult<R>> {
  const state = e2eState();
  const toolName = canonicalToolName(tool)!;
  const token = state.credentials[opts.user ?? "ada"][opts.holder ?? "agent"];
  const identity = await whoami(token);
  const sessionId = opts.sessionId ?? PROCESS_SESSION_ID;
  const runId = opts.runId ?? `run_${randomUUID().slice(0, 8)}`;
  const workspaceId = opts.workspaceId ?? state.workspaceId;
  const envelope: AgentEnvelope = {
    toolName,
    workspaceId,
    ...(opts.documentId === undefined ? {} : { documentId: opts.documentId }),
    actorId: identity.actorId,
    sessionId,
    runId,
    toolCallId: opts.toolCallId ?? `hermes_${randomUUID().replace(/-/g, "")}`,
    traceId: opts.traceId ?? randomUUID().replace(/-/g, ""),
    capabilityScope: identity.capabilityScope,
    args,
  };
  // Whether the call is a write comes from the contract (the plugin reads it from the same definitions).
  if (isWriteTool(toolName)) {
    envelope.dryRun = opts.dryRun ?? true;
    const modelArguments = { workspaceId, documentId: opts.documentId, ...args };
    envelope.idempotencyKey =
      opts.idempotencyKey ??
      `hermes_${createHash("sha256")
        .update(canonicalJson([sessionId, runId, toolName, modelArguments]))
        .digest("hex")}`;
  }
  return postEnvelope<R>(envelope, token);
}

/** Send an envelope again (a retry of the same call: same key, same args, a new toolCallId). */
export async function agentRetry<R = unknown>(
  request: AgentEnvelope,
  overrides: Partial<AgentEnvelope> = {},
  user: DemoUserKey = "ada",
) {
  const next = { ...request, toolCallId: `hermes_${randomUUID().replace(/-/g, "")}`, ...overrides };
  return postEnvelope<R>(next, e2eState().credentials[user].agent);
}

async function postEnvelope<R>(envelope: AgentEnvelope, token: string): Promise<AgentResult<R>> {
  const response = await fetch(`${e2eState().bridgeUrl}/v1/tools/${toProviderName(envelope.toolName as ToolName)}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      traceparent: `00-${envelope.traceId}-${randomUUID().replace(/-/g, "").slice(0, 16)}-01`,
    },
    body: JSON.stringify(envelope),
  });
  const output = (await response.json()) as OutputEnvelope<R>;
  return { ...output, request: envelope, httpStatus: response.status };
}

/** Session cookies the picker issued in this worker, by user id. */
const sessions = new Map<string, Cookie[]>();

/**
 * Sign in through the dev picker on /signin (it issues a 12-hour person token in the
 * session cookie) and land on the home page. A user already signed in once in this
 * worker gets that session cookie again without the round trip, and the page stays
 * where it is, unless `fresh` asks for the picker anyway. `user`: a demo user's key (DemoUserKey) or any user id.
 */
export async function signIn(page: Page, user: string, { fresh = false }: { fresh?: boolean } = {}) {
  const userId = user in DEMO_USER_IDS ? DEMO_USER_IDS[user as DemoUserKey] : user;
  const saved = sessions.get(userId);
  if (saved && !fresh) {
    await page.context().addCookies(saved);
    return;
  }
  await page.goto("/signin");
  await page.getByLabel("User", { exact: true }).selectOption(userId);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await expect(page.getByRole("heading", { name: "Your pages" })).toBeVisible();
  sessions.set(
    userId,
    (await page.context().cookies()).filter((cookie) => cookie.name === "mnote_session"),
  );
}

/**
 * Approve a proposal with the signed-in person's session, through `/api/trpc` as the panel's
 * client does (same origin), without clicking: another tab of the same person.
 */
export async function approveThroughPanelApi(
  page: Page,
  documentId: string,
  toolCallId: string,
): Promise<OutputEnvelope> {
  const { webUrl, workspaceId } = e2eState();
  const ref = { workspaceId, documentId };
  const list = await page.request.get(
    `${webUrl}/api/trpc/panel.proposals.list?input=${encodeURIComponent(JSON.stringify(ref))}`,
  );
  expect(list.status()).toBe(200);
  const proposals = ((await list.json()) as { result: { data: Array<{ id: number; toolCallId: string | null }> } })
    .result.data;
  const proposal = proposals.find((p) => p.toolCallId === toolCallId);
  expect(proposal, `a proposal for tool call ${toolCallId}`).toBeTruthy();
  const response = await page.request.post(`${webUrl}/api/trpc/panel.proposals.approve`, {
    data: { ...ref, proposalId: proposal!.id },
    headers: { origin: webUrl },
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { result: { data: OutputEnvelope } }).result.data;
}

/** Open a page with its AI panel and wait until both have loaded. */
export async function openPage(page: Page, documentId: string, workspaceId = e2eState().workspaceId) {
  await page.goto(`/w/${encodeURIComponent(workspaceId)}/p/${encodeURIComponent(documentId)}`);
  await expect(page.getByTestId("page-revision")).toBeVisible();
  await expect(page.getByText(/^\d+ pending$/)).toBeVisible();
}

export function panelTab(page: Page, name: "Suggestions" | "Comments" | "Audit trail" | "Artifacts"): Locator {
  return page.getByRole("tab", { name: new RegExp(`^${name}`) });
}

/** The proposal card of one agent call (it carries the call's toolCallId; people see it under "ids"). */
export function proposalCard(page: Page, toolCallId: string): Locator {
  return page.locator(`[data-proposal-id][data-tool-call-id="${toolCallId}"]`);
}

/** The audit rows of one call. */
export function auditRows(page: Page, toolCallId: string, effect?: string): Locator {
  return page.locator(`tr[data-tool-call-id="${toolCallId}"]${effect ? `[data-effect="${effect}"]` : ""}`);
}

/**
 * The page body as it is, [text] per block in order: suggestions of a pending proposal shown in the page are
 * read as the page stands (an inserted block is not there yet, a deleted one still is, a changed one has its
 * old words). Only drawn blocks count: the page is virtualized and folds long unchanged stretches under review.
 */
export async function blockTexts(page: Page): Promise<string[]> {
  return page.getByTestId("page-blocks").evaluate((root) =>
    [...root.querySelectorAll<HTMLElement>(".block")].flatMap((block) => {
      if (block.closest(".suggestion.insert")) return [];
      const copy = block.cloneNode(true) as HTMLElement;
      if (block.closest(".suggestion.update")) copy.querySelectorAll("ins").forEach((ins) => ins.remove());
      return [(copy.innerText ?? copy.textContent ?? "").trim()];
    }),
  );
}

/**
 * Sign in through the test OpenID provider (global-setup.ts) on its own pages: the panel's button, the
 * provider's login form (any password; the login name is the account, e2e/flows/state.ts OIDC_PEOPLE), its
 * consent page, and back to the panel.
 */
export async function signInAtProvider(page: Page, login: string) {
  await page.goto("/signin");
  await page.getByRole("button", { name: "Sign in with your identity provider" }).click();
  // The provider's development login page: any password, the login name is the account.
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

/**
 * An id or a code — a command or call id (cmd_…, panel_…), a contract code (mnote_tool_…), a snake_case or camelCase
 * key (held_for_approval, wideLayout) — none of which a person should have to read in the first line of a history
 * entry or a suggestion's card (issue 36). Ids are one click away, under "Details".
 */
export const ID_OR_CODE =
  /\b(?:cmd_|panel_|mnote_tool_|run_|trace_|user_|session_)|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][a-zA-Z]*\b/;

/** What a person reads of an element before any click: its text pieces apart, leaving out closed disclosures. */
export async function shownWords(scope: Locator): Promise<string> {
  return scope.evaluate((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const pieces: string[] = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const closed = node.parentElement?.closest("details:not([open])");
      // A closed disclosure shows its summary ("Details") only.
      if (closed && !node.parentElement?.closest("summary")) continue;
      pieces.push(node.textContent ?? "");
    }
    return pieces.join(" ").replace(/\s+/g, " ").trim();
  });
}

/** Every history entry's and suggestion card's first line is words: no id, no code (issue 36). */
export async function expectNoIdsInFirstLines(page: Page) {
  const firstLines = page.locator("table.audit .entry, li.proposal > .row.between, li.proposal dl.meta");
  for (const line of await firstLines.all()) expect(await shownWords(line), "a first line").not.toMatch(ID_OR_CODE);
}

/** Open the "Details" disclosure in `scope` (ids, change records). */
export async function openDetails(scope: Locator) {
  await scope
    .locator("summary", { hasText: /^Details$/ })
    .first()
    .click();
}
