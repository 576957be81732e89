import type { KernelAdapter } from "@mnote/kernel";

export const DEMO_IDS = { user: "demo_user", workspace: "demo_ws", page: "demo_page" };

/**
 * Demo data for `mnote-bridge serve --demo`: one user, workspace and page (created
 * once), and a fresh agent token per start. The workspace does not hold agent writes
 * for approval, so a demo agent's edits land directly.
 */
export async function ensureDemo(kernel: KernelAdapter) {
  const { admin } = kernel;
  if (!(await admin.getUser(DEMO_IDS.user))) {
    await admin.createUser({ id: DEMO_IDS.user, name: "Demo user" });
    await admin.createWorkspace({ id: DEMO_IDS.workspace, name: "Demo", ownerId: DEMO_IDS.user, approvalRequired: false });
    await admin.createPage({
      id: DEMO_IDS.page,
      workspaceId: DEMO_IDS.workspace,
      title: "Welcome to mnote",
      blocks: [
        { id: "b1", type: "heading", level: 1, text: "Welcome" },
        { id: "b2", type: "paragraph", text: "Ask your agent to summarize or edit this page." },
      ],
      createdBy: DEMO_IDS.user,
    });
  }
  const { token } = await admin.createToken({
    userId: DEMO_IDS.user,
    holder: "agent",
    scopes: ["page.read", "page.write", "artifact.write"],
    label: "mnote-bridge demo",
    ttlSeconds: 7 * 24 * 3600,
  });
  return { ...DEMO_IDS, token };
}
