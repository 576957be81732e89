import { auditMonth } from "./audit-partitions";
import { DEFAULT_PAGE_OPTIONS, EmailSchema } from "@mnote/contract";
import { type Clock, isoAfter } from "./clock";
import { hashToken, newId, newTokenSecret } from "./ids";
import { BUSINESS_TABLES, ENGINE_ONLY_COLUMNS } from "./migrations";
import { insertBlocks } from "./page-state";
import { PAGE_COLUMNS, type PageRow, toPage, toWorkspace, type WorkspaceRow } from "./rows";
import type { SqlDriver, SqlExecutor } from "./sql/driver";
import { searchText } from "./search-words";
import {
  AdminRefusal,
  type InvitationRecord,
  type KernelAdmin,
  type OperatorAudit,
  type Role,
  type TokenListing,
  type TokenRecord,
  type UserRecord,
  type WorkspacePolicy,
} from "./types";

interface WorkspacePolicyRow {
  approval_required: number | boolean;
  hold_artifacts: number | boolean;
}

function policyOf(row: WorkspacePolicyRow): WorkspacePolicy {
  return {
    approvalRequired: Boolean(Number(row.approval_required)),
    holdArtifacts: Boolean(Number(row.hold_artifacts)),
  };
}

/** How an email is stored and compared (the contract's EmailSchema); empty is none, anything else is refused. */
export function normalizeEmail(email: string | null | undefined): string | null {
  if (email === null || email === undefined || email.trim() === "") return null;
  const parsed = EmailSchema.safeParse(email);
  if (!parsed.success) throw new AdminRefusal(`${JSON.stringify(email.slice(0, 100))} is not an email address`);
  return parsed.data;
}

/**
 * Operator actions: set-up data, not tool calls, so they carry no command. When an operator makes them (`by` is
 * given, as the CLI does), each one writes its audit record (`admin.*`) in the same transaction as the change.
 */
export function createAdmin(db: SqlDriver, clock: Clock): KernelAdmin {
  const now = () => clock.now().toISOString();

  // The record names the workspace, never a page: a page's audit trail in the panel is its tool calls, and an
  // operator's change is not one of them (the page id, when there is one, is in the detail).
  async function audit(
    tx: SqlExecutor,
    who: OperatorAudit | undefined,
    action: string,
    workspaceId: string | null,
    detail: Record<string, unknown>,
  ) {
    if (!who?.by) return;
    const at = now();
    await tx.run(
      `INSERT INTO audit_log (at, tool_name, effect, outcome, workspace_id, actor_id, detail, month)
       VALUES (?, ?, 'write', 'ok', ?, ?, ?, ?)`,
      [at, `admin.${action}`, workspaceId, who.by, JSON.stringify(detail), auditMonth(at)],
    );
  }

  /** A workspace must keep an owner: refuse a change that leaves `userId`'s workspace without one. */
  async function keepAnOwner(tx: SqlExecutor, workspaceId: string, userId: string) {
    const owners = await tx.all<{ user_id: string }>(
      `SELECT user_id FROM members WHERE workspace_id = ? AND role = 'owner'${db.forUpdate}`,
      [workspaceId],
    );
    if (owners.length === 1 && owners[0]!.user_id === userId) {
      throw new AdminRefusal(`${userId} is the last owner of ${workspaceId}: make another member owner first`, {
        rule: "last_owner",
        userId,
        workspaceId,
      });
    }
  }

  /** An email is one user's: refuse it when another user has it (the UNIQUE index is the last word on a race). */
  async function emailFree(tx: SqlExecutor, email: string | null, userId: string) {
    if (email === null) return;
    const holder = await tx.get<{ id: string }>(`SELECT id FROM users WHERE email = ?`, [email]);
    if (holder && holder.id !== userId) throw new AdminRefusal(`another user (${holder.id}) has the email ${email}`);
  }

  const USER_COLUMNS = `id, name, email`;
  const INVITATION_SELECT = `SELECT i.id AS id, i.workspace_id AS "workspaceId", w.name AS "workspaceName", i.email AS email,
    i.role AS role, i.invited_by AS "invitedBy", inviter.name AS "invitedByName", i.created_at AS "createdAt"
    FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN users inviter ON inviter.id = i.invited_by`;

  return {
    async createUser({ id = newId("user"), name, email = null, by }) {
      const stored = normalizeEmail(email);
      await db.transaction(async (tx) => {
        await emailFree(tx, stored, id);
        await tx.run(`INSERT INTO users (id, name, email, created_at) VALUES (?, ?, ?, ?)`, [id, name, stored, now()]);
        await audit(tx, { by }, "user.create", null, { userId: id, name, ...(stored ? { email: stored } : {}) });
      });
      return { id, name, email: stored };
    },
    async setUserEmail(userId, email, who) {
      const stored = normalizeEmail(email);
      return db.transaction(async (tx) => {
        const user = await tx.get<UserRecord>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?${db.forUpdate}`, [
          userId,
        ]);
        if (!user) throw new AdminRefusal(`no user ${userId}`);
        await emailFree(tx, stored, userId);
        await tx.run(`UPDATE users SET email = ? WHERE id = ?`, [stored, userId]);
        await audit(tx, who, "user.email", null, { userId, email: stored, previousEmail: user.email });
        return { ...user, email: stored };
      });
    },
    async findUserByEmail(email) {
      const parsed = EmailSchema.safeParse(email);
      if (!parsed.success) return null;
      const stored = parsed.data;
      return (await db.get<UserRecord>(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`, [stored])) ?? null;
    },
    async createWorkspace({ id = newId("ws"), name, ownerId, approvalRequired = true, by }) {
      await db.transaction(async (tx) => {
        await tx.run(`INSERT INTO workspaces (id, name, approval_required, created_at) VALUES (?, ?, ?, ?)`, [
          id,
          name,
          approvalRequired ? 1 : 0,
          now(),
        ]);
        await tx.run(`INSERT INTO members (workspace_id, user_id, role) VALUES (?, ?, 'owner')`, [id, ownerId]);
        await audit(tx, { by }, "workspace.create", id, { name, ownerId, approvalRequired });
      });
      return { id, name, approvalRequired, holdArtifacts: false };
    },
    async setWorkspacePolicy(workspaceId, change, who) {
      if (!who?.by) throw new AdminRefusal("a change of the approval policy names who makes it");
      return db.transaction(async (tx) => {
        const row = await tx.get<WorkspacePolicyRow>(
          `SELECT approval_required, hold_artifacts FROM workspaces WHERE id = ?${db.forUpdate}`,
          [workspaceId],
        );
        if (!row) throw new AdminRefusal(`no workspace ${workspaceId}`);
        const from = policyOf(row);
        const to: WorkspacePolicy = {
          approvalRequired: change.approvalRequired ?? from.approvalRequired,
          holdArtifacts: change.holdArtifacts ?? from.holdArtifacts,
        };
        await tx.run(`UPDATE workspaces SET approval_required = ?, hold_artifacts = ? WHERE id = ?`, [
          to.approvalRequired ? 1 : 0,
          to.holdArtifacts ? 1 : 0,
          workspaceId,
        ]);
        // Every change is on record (issue 20), the unchanged ones too: someone asked, and when, is itself a fact.
        await audit(tx, who, "workspace.policy", workspaceId, { from, to, via: who.via ?? null });
        return { from, to };
      });
    },
    async addMember({ workspaceId, userId, role, by }) {
      await db.transaction(async (tx) => {
        if (role !== "owner") await keepAnOwner(tx, workspaceId, userId);
        const before = await tx.get<{ role: Role }>(`SELECT role FROM members WHERE workspace_id = ? AND user_id = ?`, [
          workspaceId,
          userId,
        ]);
        await tx.run(`DELETE FROM members WHERE workspace_id = ? AND user_id = ?`, [workspaceId, userId]);
        await tx.run(`INSERT INTO members (workspace_id, user_id, role) VALUES (?, ?, ?)`, [workspaceId, userId, role]);
        await audit(tx, { by }, before ? "member.role" : "member.add", workspaceId, {
          userId,
          role,
          previousRole: before?.role ?? null,
        });
      });
    },
    async setMemberRole({ workspaceId, userId, role, by }) {
      await db.transaction(async (tx) => {
        const before = await tx.get<{ role: Role }>(
          `SELECT role FROM members WHERE workspace_id = ? AND user_id = ?${db.forUpdate}`,
          [workspaceId, userId],
        );
        if (!before)
          throw new AdminRefusal(`${userId} is not a member of ${workspaceId}`, {
            rule: "not_member",
            userId,
            workspaceId,
          });
        if (role !== "owner") await keepAnOwner(tx, workspaceId, userId);
        await tx.run(`UPDATE members SET role = ? WHERE workspace_id = ? AND user_id = ?`, [role, workspaceId, userId]);
        await audit(tx, { by }, "member.role", workspaceId, { userId, role, previousRole: before.role });
      });
    },
    async removeMember({ workspaceId, userId, by }) {
      await db.transaction(async (tx) => {
        await keepAnOwner(tx, workspaceId, userId);
        const { changes } = await tx.run(`DELETE FROM members WHERE workspace_id = ? AND user_id = ?`, [
          workspaceId,
          userId,
        ]);
        if (changes === 0)
          throw new AdminRefusal(`${userId} is not a member of ${workspaceId}`, {
            rule: "not_member",
            userId,
            workspaceId,
          });
        await audit(tx, { by }, "member.remove", workspaceId, { userId });
      });
    },
    async listMembers(workspaceId) {
      return db.all<{ userId: string; name: string; role: Role }>(
        `SELECT m.user_id AS "userId", u.name AS name, m.role AS role FROM members m JOIN users u ON u.id = m.user_id
         WHERE m.workspace_id = ? ORDER BY u.name, m.user_id`,
        [workspaceId],
      );
    },
    async inviteMember({ workspaceId, email, role, by }) {
      const stored = normalizeEmail(email);
      if (stored === null) throw new AdminRefusal("an invitation names an email");
      return db.transaction(async (tx) => {
        const pending = await tx.get<{ id: string }>(
          `SELECT id FROM invitations WHERE workspace_id = ? AND email = ? AND decided_at IS NULL${db.forUpdate}`,
          [workspaceId, stored],
        );
        const id = pending?.id ?? newId("inv");
        if (pending) await tx.run(`UPDATE invitations SET role = ?, invited_by = ? WHERE id = ?`, [role, by ?? "", id]);
        else
          await tx.run(
            `INSERT INTO invitations (id, workspace_id, email, role, invited_by, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
            [id, workspaceId, stored, role, by ?? "", now()],
          );
        await audit(tx, { by }, "member.invite", workspaceId, { invitationId: id, email: stored, role });
        return { id };
      });
    },
    async listWorkspaceInvitations(workspaceId) {
      return db.all<InvitationRecord>(
        `${INVITATION_SELECT} WHERE i.workspace_id = ? AND i.decided_at IS NULL
        ORDER BY i.created_at, i.id`,
        [workspaceId],
      );
    },
    async listInvitationsForUser(userId) {
      return db.all<InvitationRecord>(
        `${INVITATION_SELECT} JOIN users me ON me.email = i.email WHERE me.id = ? AND i.decided_at IS NULL
         ORDER BY i.created_at, i.id`,
        [userId],
      );
    },
    async decideInvitation({ invitationId, userId, accept }) {
      return db.transaction(async (tx) => {
        const invitation = await tx.get<InvitationRecord>(
          `${INVITATION_SELECT} JOIN users me ON me.email = i.email
           WHERE i.id = ? AND me.id = ? AND i.decided_at IS NULL${db.forUpdate === "" ? "" : " FOR UPDATE OF i"}`,
          [invitationId, userId],
        );
        // Someone else's invitation, a decided one and none at all are one refusal: nothing about others is told.
        if (!invitation) throw new AdminRefusal("no pending invitation of yours has that id");
        const outcome = accept ? "accepted" : "declined";
        await tx.run(`UPDATE invitations SET decided_at = ?, outcome = ? WHERE id = ?`, [now(), outcome, invitationId]);
        if (accept) {
          const before = await tx.get<{ role: Role }>(
            `SELECT role FROM members WHERE workspace_id = ? AND user_id = ?`,
            [invitation.workspaceId, userId],
          );
          // An invitation adds or raises, never takes the last owner's role away (the kernel's one rule).
          if (invitation.role !== "owner") await keepAnOwner(tx, invitation.workspaceId, userId);
          await tx.run(`DELETE FROM members WHERE workspace_id = ? AND user_id = ?`, [invitation.workspaceId, userId]);
          await tx.run(`INSERT INTO members (workspace_id, user_id, role) VALUES (?, ?, ?)`, [
            invitation.workspaceId,
            userId,
            invitation.role,
          ]);
          await audit(tx, { by: userId }, "member.invitation", invitation.workspaceId, {
            invitationId,
            outcome,
            userId,
            role: invitation.role,
            previousRole: before?.role ?? null,
            invitedBy: invitation.invitedBy,
          });
        } else {
          await audit(tx, { by: userId }, "member.invitation", invitation.workspaceId, {
            invitationId,
            outcome,
            userId,
            role: invitation.role,
            invitedBy: invitation.invitedBy,
          });
        }
        return invitation;
      });
    },
    async createPage({ id = newId("doc"), workspaceId, title, isPrivate = false, blocks = [], createdBy, by }) {
      const at = now();
      await db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO pages (id, workspace_id, title, is_private, options, revision, block_count, created_by, created_at, updated_at, search_title)
           VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
          [
            id,
            workspaceId,
            title,
            isPrivate ? 1 : 0,
            JSON.stringify(DEFAULT_PAGE_OPTIONS),
            blocks.length,
            createdBy,
            at,
            at,
            searchText(title),
          ],
        );
        await insertBlocks(tx, id, blocks, 0);
        await audit(tx, { by }, "page.create", workspaceId, {
          documentId: id,
          title,
          isPrivate,
          blocks: blocks.length,
          createdBy,
        });
      });
      const row = await db.get<PageRow>(`SELECT ${PAGE_COLUMNS} FROM pages WHERE id = ?`, [id]);
      return toPage(row!);
    },
    async grantPage({ documentId, userId, access, by }) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM page_grants WHERE document_id = ? AND user_id = ?`, [documentId, userId]);
        await tx.run(`INSERT INTO page_grants (document_id, user_id, access) VALUES (?, ?, ?)`, [
          documentId,
          userId,
          access,
        ]);
        await audit(tx, { by }, "page.grant", null, { documentId, userId, access });
      });
    },
    async revokePageGrant({ documentId, userId, by }) {
      await db.transaction(async (tx) => {
        await tx.run(`DELETE FROM page_grants WHERE document_id = ? AND user_id = ?`, [documentId, userId]);
        await audit(tx, { by }, "page.revoke", null, { documentId, userId });
      });
    },
    async createToken({ userId, holder, scopes, label = "", ttlSeconds = null, by }) {
      const token = newTokenSecret();
      const createdAt = now();
      const record: TokenRecord = {
        id: newId("tok"),
        userId,
        holder,
        scopes: [...new Set(scopes)],
        label,
        // null means "never expires"; 0 means "already expired", not "forever".
        expiresAt: ttlSeconds === null || ttlSeconds === undefined ? null : isoAfter(clock, ttlSeconds * 1000),
        revokedAt: null,
      };
      await db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO tokens (id, user_id, holder, scopes, token_hash, label, created_at, expires_at, revoked_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
          [
            record.id,
            userId,
            holder,
            JSON.stringify(record.scopes),
            hashToken(token),
            label,
            createdAt,
            record.expiresAt,
          ],
        );
        // The audit keeps the token's id, never its secret or hash.
        await audit(tx, { by }, "token.create", null, {
          tokenId: record.id,
          userId,
          holder,
          scopes: record.scopes,
          expiresAt: record.expiresAt,
        });
      });
      return { token, record };
    },
    async revokeToken(tokenId, who) {
      await db.transaction(async (tx) => {
        const { changes } = await tx.run(`UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, [
          now(),
          tokenId,
        ]);
        await audit(tx, who, "token.revoke", null, { tokenId, revoked: changes });
      });
    },
    async revokeTokensOf(userId, who) {
      return db.transaction(async (tx) => {
        const { changes } = await tx.run(`UPDATE tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`, [
          now(),
          userId,
        ]);
        await audit(tx, who, "token.revoke", null, { userId, revoked: changes });
        return changes;
      });
    },
    async listTokens(userId) {
      const rows = await db.all<{
        id: string;
        user_id: string;
        holder: TokenListing["holder"];
        scopes: string;
        label: string;
        created_at: string;
        expires_at: string | null;
        revoked_at: string | null;
        last_used_at: string | null;
      }>(
        // Last use from the audit (index audit_by_token): the newest record of each of the user's tokens.
        // An OAuth grant (decision 0027) lives as long as its unspent refresh token, not its hour-long access secret.
        `SELECT t.id, t.user_id, t.holder, t.scopes, t.label, t.created_at, t.revoked_at,
           CASE WHEN t.oauth_client_id IS NULL THEN t.expires_at ELSE
             (SELECT MAX(r.expires_at) FROM oauth_refresh_tokens r WHERE r.token_id = t.id AND r.used_at IS NULL) END
             AS expires_at,
           (SELECT MAX(a.at) FROM audit_log a WHERE a.token_id = t.id) AS last_used_at
         FROM tokens t WHERE t.user_id = ? ORDER BY t.created_at DESC, t.id`,
        [userId],
      );
      return rows.map((row) => ({
        id: row.id,
        userId: row.user_id,
        holder: row.holder,
        scopes: JSON.parse(row.scopes) as TokenRecord["scopes"],
        label: row.label,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        lastUsedAt: row.last_used_at,
      }));
    },
    async removeUser(userId, who) {
      await db.transaction(async (tx) => {
        if (!(await tx.get(`SELECT id FROM users WHERE id = ?${db.forUpdate}`, [userId])))
          throw new AdminRefusal(`no user ${userId}`);
        const owned = await tx.all<{ workspace_id: string }>(
          `SELECT workspace_id FROM members WHERE user_id = ? AND role = 'owner'`,
          [userId],
        );
        for (const { workspace_id } of owned) await keepAnOwner(tx, workspace_id, userId);
        // Tokens go (not only revoked): they reference the user row. Commands and audit keep the id as history.
        const tokens = await tx.run(`DELETE FROM tokens WHERE user_id = ?`, [userId]);
        const grants = await tx.run(`DELETE FROM page_grants WHERE user_id = ?`, [userId]);
        const members = await tx.run(`DELETE FROM members WHERE user_id = ?`, [userId]);
        await tx.run(`DELETE FROM users WHERE id = ?`, [userId]);
        await audit(tx, who, "user.remove", null, {
          userId,
          tokens: tokens.changes,
          grants: grants.changes,
          memberships: members.changes,
        });
      });
    },
    async getUser(id) {
      return (await db.get<UserRecord>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [id])) ?? null;
    },
    async listUsers() {
      return db.all<UserRecord>(`SELECT ${USER_COLUMNS} FROM users ORDER BY name, id`);
    },
    async listWorkspaces(userId) {
      const rows = userId
        ? await db.all<WorkspaceRow & { role: Role }>(
            `SELECT w.id, w.name, w.approval_required, w.hold_artifacts, m.role FROM workspaces w
             JOIN members m ON m.workspace_id = w.id WHERE m.user_id = ? ORDER BY w.name, w.id`,
            [userId],
          )
        : await db.all<WorkspaceRow & { role: null }>(
            `SELECT id, name, approval_required, hold_artifacts, NULL AS role FROM workspaces ORDER BY name, id`,
          );
      return rows.map((row) => ({ ...toWorkspace(row), role: row.role }));
    },
    async listPages(workspaceId) {
      const rows = await db.all<PageRow>(
        `SELECT ${PAGE_COLUMNS} FROM pages WHERE workspace_id = ? AND removed_at IS NULL ORDER BY title, id`,
        [workspaceId],
      );
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
          .map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !ENGINE_ONLY_COLUMNS.has(column))))
          .map((row) => ({ row, key: JSON.stringify(Object.values(row)) }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
          .map(({ row }) => row);
      }
      return snapshot;
    },
  };
}
