import { readFileSync } from "node:fs";

export type DemoUserKey = "ada" | "ben" | "cy" | "dee";

/** The demo's users (apps/cli/src/demo.ts): the only ones the panel's sign-in picker signs in. */
export const DEMO_USER_IDS: Record<DemoUserKey, string> = {
  ada: "user_ada",
  ben: "user_ben",
  cy: "user_cy",
  dee: "user_dee",
};

/**
 * The test OpenID provider's people (login name → claims). Ada's email is her mnote user's; Stranger's is no
 * one's; Unverified's is Ada's, but the provider has not verified it; Leaver's user is made by a flow.
 */
export const OIDC_PEOPLE = {
  ada: { email: "Ada@Example.com", name: "Ada Lovelace" },
  stranger: { email: "stranger@example.com", name: "Stranger" },
  unverified: { email: "ada@example.com", emailVerified: false },
  leaver: { email: "leaver@example.com", name: "Leaver" },
};

/** What global-setup.ts hands the flows. */
export interface E2EState {
  bridgeUrl: string;
  webUrl: string;
  databaseUrl: string;
  dir: string;
  workspaceId: string;
  credentials: Record<DemoUserKey, { person: string; agent: string }>;
  /** The stand-in for Hermes's API server the panel is connected to (e2e/hermes-standin). */
  hermes: { url: string; pid: number; toolsetsFile: string; key: string };
  /** The OpenID provider the panel signs people in through (@mnote/identity/test-idp). */
  idp: { issuer: string };
}

let cached: E2EState | null = null;

export function e2eState(): E2EState {
  if (cached) return cached;
  const file = process.env.MNOTE_E2E_STATE;
  if (!file)
    throw new Error(
      "MNOTE_E2E_STATE is not set: run the flows through playwright.config.ts (its globalSetup starts the stack)",
    );
  cached = JSON.parse(readFileSync(file, "utf8")) as E2EState;
  return cached;
}
