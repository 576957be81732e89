import { PAGE_COLUMNS, type PageRow, toPage, toWorkspace, type WorkspaceRow } from "./rows";
import type { SqlExecutor } from "./sql/driver";
import type { AccessFacts, DisplayNames, PageOverview, TokenHolder } from "./types";

/**
 * The panel's list of pages in one statement (issue 15: it read the access facts once per page): every
 * page of the workspace with the user's role and grant, and its pending proposals counted as the panel
 * lists them (repeats of one edit once). Which pages the user may read is the tools' rule, not decided here.
 */
const PAGE_OVERVIEW_SQL = `SELECT w.id AS ws_id, w.name AS ws_name, w.approval_required AS ws_approval_required, w.hold_artifacts AS ws_hold_artifacts, m.role,
    ${PAGE_COLUMNS.split(", ")
      .map((column) => `p.${column}`)
      .join(", ")}, g.access, COALESCE(pc.n, 0) AS pending
  FROM workspaces w
  JOIN pages p ON p.workspace_id = w.id AND p.removed_at IS NULL
  LEFT JOIN members m ON m.workspace_id = w.id AND m.user_id = ?
  LEFT JOIN page_grants g ON g.document_id = p.id AND g.user_id = ?
  LEFT JOIN (
    SELECT document_id, COUNT(*) AS n FROM (
      SELECT DISTINCT document_id, tool_name, idempotency_key, payload_fingerprint
      FROM proposals WHERE workspace_id = ? AND status = 'pending') edits
    GROUP BY document_id) pc ON pc.document_id = p.id
  WHERE w.id = ?
  ORDER BY p.title, p.id`;

type OverviewRow = PageRow & {
  ws_id: string;
  ws_name: string;
  ws_approval_required: WorkspaceRow["approval_required"];
  ws_hold_artifacts: WorkspaceRow["hold_artifacts"];
  role: AccessFacts["role"];
  access: AccessFacts["grant"];
  pending: number | string;
};

export async function listPageOverviews(
  db: SqlExecutor,
  input: { workspaceId: string; userId: string },
): Promise<PageOverview[]> {
  const rows = await db.all<OverviewRow>(PAGE_OVERVIEW_SQL, [
    input.userId,
    input.userId,
    input.workspaceId,
    input.workspaceId,
  ]);
  return rows.map((row) => ({
    facts: {
      workspace: toWorkspace({
        id: row.ws_id,
        name: row.ws_name,
        approval_required: row.ws_approval_required,
        hold_artifacts: row.ws_hold_artifacts,
      }),
      role: row.role ?? null,
      page: toPage(row),
      grant: row.access ?? null,
    },
    pendingProposals: Number(row.pending),
  }));
}

/** Ids per statement: well under every driver's parameter limit, and few distinct statements to prepare. */
const NAME_CHUNK = 100;

async function byIds<T>(db: SqlExecutor, select: string, ids: readonly string[]): Promise<T[]> {
  const unique = [...new Set(ids)].filter((id) => id !== "");
  const rows: T[] = [];
  for (let start = 0; start < unique.length; start += NAME_CHUNK) {
    const chunk = unique.slice(start, start + NAME_CHUNK);
    rows.push(...(await db.all<T>(`${select} IN (${chunk.map(() => "?").join(", ")})`, chunk)));
  }
  return rows;
}

export async function getDisplayNames(
  db: SqlExecutor,
  input: { userIds: readonly string[]; tokenIds: readonly string[] },
): Promise<DisplayNames> {
  const users = await byIds<{ id: string; name: string }>(db, `SELECT id, name FROM users WHERE id`, input.userIds);
  const tokens = await byIds<{ id: string; holder: TokenHolder; label: string; user_id: string }>(
    db,
    `SELECT id, holder, label, user_id FROM tokens WHERE id`,
    input.tokenIds,
  );
  return {
    users: Object.fromEntries(users.map((user) => [user.id, user.name])),
    tokens: Object.fromEntries(
      tokens.map((token) => [token.id, { holder: token.holder, label: token.label, userId: token.user_id }]),
    ),
  };
}
