import { DEFAULT_PAGE_OPTIONS } from "@mnote/contract";
import { hashToken, newId, newTokenSecret } from "./ids";
import { BUSINESS_TABLES } from "./migrations";
import { insertBlocks } from "./page-state";
import { PAGE_COLUMNS, type PageRow, toPage, toWorkspace, type WorkspaceRow } from "./rows";
import type { SqlDriver } from "./sql/driver";
import type { KernelAdmin, Role, TokenRecord } from "./types";

/** Operator actions: set-up data, not tool calls, so they carry no command or audit record. */
export function createAdmin(db: SqlDriver): KernelAdmin {
  const now = () => new Date().toISOString();
  return {
    async createUser({ id = newId("user"), name }) {
      await db.run(`INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)`, [id, name, now()]);
      return { id, name };
    },
    async createWorkspace({ id = newId("ws"), name, ownerId, approvalRequired = true }) {
      await db.transaction(async (tx) => {
        await tx.run(`INSERT INTO workspaces (id, name, approval_required, created_at) VALUES (?, ?, ?, ?)`, [
          id,
          name,
          approvalRequired ? 1 : 0,
          now(),
        ]);
        await tx.run(`INSERT INTO members (workspace_id, user_id, role) VALUES (?, ?, 'owner')`, [id, ownerId]);
      });
      return { id, name, approvalRequired };
    },
    async setApprovalRequired(workspaceId, approvalRequired) {
      await db.run(`UPDATE workspaces SET approval_required = ? WHERE id = ?`, [approvalRequired ? 1 : 0, workspaceId]);
    },
    async addMember({ workspaceId, userId, role }) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM members WHERE workspace_id = ? AND user_id = ?`, [workspaceId, userId]);
        await tx.run(`INSERT INTO members (workspace_id, user_id, role) VALUES (?, ?, ?)`, [workspaceId, userId, role]);
      });
    },
    async removeMember({ workspaceId, userId }) {
      await db.run(`DELETE FROM members WHERE workspace_id = ? AND user_id = ?`, [workspaceId, userId]);
    },
    async createPage({ id = newId("doc"), workspaceId, title, isPrivate = false, blocks = [], createdBy }) {
      const at = now();
      await db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO pages (id, workspace_id, title, is_private, options, revision, block_count, created_by, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
          [id, workspaceId, title, isPrivate ? 1 : 0, JSON.stringify(DEFAULT_PAGE_OPTIONS), blocks.length, createdBy, at, at],
        );
        await insertBlocks(tx, id, blocks, 0);
      });
      const row = await db.get<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ?`, [id]);
      return toPage(row!);
    },
    async grantPage({ documentId, userId, access }) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM page_grants WHERE document_id = ? AND user_id = ?`, [documentId, userId]);
        await tx.run(`INSERT INTO page_grants (document_id, user_id, access) VALUES (?, ?, ?)`, [documentId, userId, access]);
      });
    },
    async revokePageGrant({ documentId, userId }) {
      await db.run(`DELETE FROM page_grants WHERE document_id = ? AND user_id = ?`, [documentId, userId]);
    },
    async createToken({ userId, holder, scopes, label = "", ttlSeconds = null }) {
      const token = newTokenSecret();
      const createdAt = now();
      const record: TokenRecord = {
        id: newId("tok"),
        userId,
        holder,
        scopes: [...new Set(scopes)],
        label,
        // null means "never expires"; 0 means "already expired", not "forever".
        expiresAt: ttlSeconds === null || ttlSeconds === undefined ? null : new Date(Date.now() + ttlSeconds * 1000).toISOString(),
        revokedAt: null,
      };
      await db.run(
        `INSERT INTO tokens (id, user_id, holder, scopes, token_hash, label, created_at, expires_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
        [record.id, userId, holder, JSON.stringify(record.scopes), hashToken(token), label, createdAt, record.expiresAt],
      );
      return { token, record };
    },
    async revokeToken(tokenId) {
      await db.run(`UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, [now(), tokenId]);
    },
    async getUser(id) {
      return (await db.get<{ id: string; name: string }>(`SELECT id, name FROM users WHERE id = ?`, [id])) ?? null;
    },
    async listUsers() {
      return db.all<{ id: string; name: string }>(`SELECT id, name FROM users ORDER BY name, id`);
    },
    async listWorkspaces(userId) {
      const rows = userId
        ? await db.all<WorkspaceRow & { role: Role }>(
            `SELECT w.id, w.name, w.approval_required, m.role FROM workspaces w
             JOIN members m ON m.workspace_id = w.id WHERE m.user_id = ? ORDER BY w.name, w.id`,
            [userId],
          )
        : await db.all<WorkspaceRow & { role: null }>(
            `SELECT id, name, approval_required, NULL AS role FROM workspaces ORDER BY name, id`,
          );
      return rows.map((row) => ({ ...toWorkspace(row), role: row.role }));
    },
    async listPages(workspaceId) {
      const rows = await db.all<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE workspace_id = ? ORDER BY title, id`, [
        workspaceId,
      ]);
      return rows.map(toPage);
    },
    async tableSnapshot() {
      const snapshot: Record<string, unknown[]> = {};
      for (const table of BUSINESS_TABLES) {
        // Sorted on every column here, not by the database: `ORDER BY 1, 2` leaves ties (idempotency rows of one
        // actor) in whatever order the engine likes, and PostgreSQL and SQLite collate text differently. A total,
        // engine-free order makes two snapshots, from one database or from two, comparable with a deep equality check.
        const rows = await db.all<Record<string, unknown>>(`SELECT * FROM ${table}`);
        snapshot[table] = rows
          .map((row) => ({ row, key: JSON.stringify(Object.values(row)) }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
          .map(({ row }) => row);
      }
      return snapshot;
    },
  };
}
