import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Block, Capability } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { resolveToken } from "@mnote/tools";

/**
 * Known names (Ada owns the demo workspace, Ben edits, Cy views, Dee is elsewhere), so the README, the panel's sign-in
 * picker and the e2e tests can refer to them. Each has an email (under `.example`, a name that can never be a real
 * address) so that inviting a demo person by email on *Members* works in the demo as it does for real users.
 */
export const DEMO = {
  workspaceId: "ws_demo",
  otherWorkspaceId: "ws_other",
  users: {
    ada: { id: "user_ada", name: "Ada", email: "ada@mnote-demo.example" },
    ben: { id: "user_ben", name: "Ben", email: "ben@mnote-demo.example" },
    cy: { id: "user_cy", name: "Cy", email: "cy@mnote-demo.example" },
    dee: { id: "user_dee", name: "Dee", email: "dee@mnote-demo.example" },
  },
  pages: { plan: "doc_plan", notes: "doc_notes", private: "doc_private", other: "doc_other" },
} as const;

const ALL_SCOPES: Capability[] = ["page.read", "page.write", "artifact.write"];

const planBlocks: Block[] = [
  { id: "plan_h1", type: "heading", level: 1, text: "项目计划 · Project plan" },
  {
    id: "plan_p1",
    type: "paragraph",
    text: "We ship the page-AI panel so people can review every AI edit before it lands.",
    // Formatting (decision 0026): a bold phrase and a link, stored as marks over the plain text.
    marks: [
      { type: "italic", start: 12, end: 25 },
      { type: "bold", start: 40, end: 60 },
    ],
  },
  { id: "plan_h2", type: "heading", level: 2, text: "Milestones" },
  { id: "plan_t1", type: "todo", checked: true, text: "Tool contract v1 agreed" },
  { id: "plan_t2", type: "todo", checked: false, text: "Bridge exposes the mnote tools to Hermes" },
  { id: "plan_t3", type: "todo", checked: false, text: "Panel shows diffs and the audit trail" },
  { id: "plan_q1", type: "quote", text: "Nothing the AI writes should surprise the page's owner." },
  { id: "plan_h3", type: "heading", level: 2, text: "Rollout" },
  {
    id: "plan_b1",
    type: "bulleted",
    text: "Internal team first, with Hermes Agent",
    marks: [{ type: "link", start: 26, end: 38, href: "https://github.com/NousResearch/hermes-agent" }],
  },
  {
    id: "plan_b2",
    type: "bulleted",
    text: "Try the Markdown form: read with format: markdown",
    indent: 1,
    marks: [{ type: "code", start: 33, end: 49 }],
  },
  { id: "plan_b3", type: "todo", checked: false, text: "Approve the first formatted edit", indent: 2 },
  { id: "plan_b4", type: "bulleted", text: "Then everyone" },
];

export interface DemoCredentials {
  [user: string]: { person: string; agent: string };
}

/** The demo will not seed a database that holds anyone but its own users (unless forced). */
export class DemoRefused extends Error {}

/**
 * Is this a database the demo created? Yes when it holds no users but the demo's own
 * (an empty database included): every real database has users of its own. No marker to
 * forge or lose, and it reads the same on SQLite and PostgreSQL.
 */
export async function isDemoDatabase(kernel: SqlKernel): Promise<boolean> {
  const demoIds = new Set<string>(Object.values(DEMO.users).map((user) => user.id));
  return (await kernel.admin.listUsers()).every((user) => demoIds.has(user.id));
}

/**
 * Create the demo workspace once, on a database of its own (see `isDemoDatabase`), and keep one person token and one agent token
 * per demo user in a local file beside the database so restarts reuse them.
 */
export async function ensureDemo(
  kernel: SqlKernel,
  credentialsFile: string,
  options: { force?: boolean } = {},
): Promise<DemoCredentials> {
  const { admin } = kernel;
  if (!options.force && !(await isDemoDatabase(kernel))) {
    throw new DemoRefused(
      "this database has users the demo did not create: the demo (and its sign-in picker) only runs on a database of its own. " +
        "Use an empty database, or pass --force (npm start: MNOTE_DEMO=force) to add the demo workspace anyway.",
    );
  }
  if (!(await admin.getUser(DEMO.users.ada.id))) {
    for (const user of Object.values(DEMO.users)) await admin.createUser(user);
    await admin.createWorkspace({ id: DEMO.workspaceId, name: "Demo workspace", ownerId: DEMO.users.ada.id });
    await admin.addMember({ workspaceId: DEMO.workspaceId, userId: DEMO.users.ben.id, role: "editor" });
    await admin.addMember({ workspaceId: DEMO.workspaceId, userId: DEMO.users.cy.id, role: "viewer" });
    await admin.createWorkspace({ id: DEMO.otherWorkspaceId, name: "Dee's workspace", ownerId: DEMO.users.dee.id });
    const ada = DEMO.users.ada.id;
    await admin.createPage({
      id: DEMO.pages.plan,
      workspaceId: DEMO.workspaceId,
      title: "项目计划",
      blocks: planBlocks,
      createdBy: ada,
    });
    await admin.createPage({
      id: DEMO.pages.notes,
      workspaceId: DEMO.workspaceId,
      title: "Meeting notes",
      blocks: [{ id: "notes_p1", type: "paragraph", text: "Decisions from Monday." }],
      createdBy: ada,
    });
    await admin.createPage({
      id: DEMO.pages.private,
      workspaceId: DEMO.workspaceId,
      title: "Ada's private page",
      isPrivate: true,
      blocks: [{ id: "priv_p1", type: "paragraph", text: "Salary review — only Ada may read this." }],
      createdBy: ada,
    });
    await admin.grantPage({ documentId: DEMO.pages.private, userId: ada, access: "write" });
    await admin.createPage({
      id: DEMO.pages.other,
      workspaceId: DEMO.otherWorkspaceId,
      title: "Dee's page",
      createdBy: DEMO.users.dee.id,
    });
  } else {
    // A demo database seeded before the demo people had emails gets them, so inviting by email works there too.
    for (const user of Object.values(DEMO.users)) {
      const stored = await admin.getUser(user.id);
      if (stored && stored.email === null && !(await admin.findUserByEmail(user.email)))
        await admin.setUserEmail(user.id, user.email);
    }
  }
  const saved = existsSync(credentialsFile)
    ? (JSON.parse(readFileSync(credentialsFile, "utf8")) as DemoCredentials)
    : {};
  const usable = async (token: string | undefined) => {
    return token ? (await resolveToken(kernel, token)) !== null : false;
  };
  const credentials: DemoCredentials = {};
  for (const [key, user] of Object.entries(DEMO.users)) {
    const previous = saved[key];
    credentials[key] = {
      person: (await usable(previous?.person))
        ? previous!.person
        : (await admin.createToken({ userId: user.id, holder: "person", scopes: ALL_SCOPES, label: "demo person" }))
            .token,
      agent: (await usable(previous?.agent))
        ? previous!.agent
        : (await admin.createToken({ userId: user.id, holder: "agent", scopes: ALL_SCOPES, label: "demo agent" }))
            .token,
    };
  }
  mkdirSync(dirname(credentialsFile), { recursive: true });
  writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return credentials;
}
