import { describe, expect, it } from "vitest";
import { migrate } from "../migrations";
import type { SqlDriver } from "../sql/driver";
import { SqlKernel } from "../sql-kernel";

/**
 * Version 2 builds the proposals index from the audit log of a database made before it, with the
 * states the panel used to derive from the log: applied (a command of the same edit), rejected (a later
 * `rejected` record of the same edit), pending otherwise.
 */
export function proposalsMigrationSuite(name: string, openDriver: () => Promise<SqlDriver>) {
  describe(`proposals index migration: ${name}`, () => {
    it("indexes the proposals a version-1 database holds, with their states", async () => {
      const driver = await openDriver();
      await migrate(driver);
      const kernel = new SqlKernel(driver);
      const owner = (await kernel.admin.createUser({ id: "owner", name: "Owner" })).id;
      const ws = (await kernel.admin.createWorkspace({ id: "ws", name: "WS", ownerId: owner })).id;
      const doc = (await kernel.admin.createPage({ id: "doc", workspaceId: ws, title: "Plan", createdBy: owner })).id;
      const identity = {
        toolName: "mnote.page.update_title",
        workspaceId: ws,
        documentId: doc,
        actorId: owner,
        tokenId: null,
        holder: "agent" as const,
        sessionId: "s",
        runId: "r",
        toolCallId: "c",
        traceId: "t",
      };
      const applied = await kernel.execute({
        identity,
        command: { name: "page.head.updateTitle", title: "New" },
        idempotency: { key: "k_applied", fingerprint: "fp", expiresAt: "2999-01-01T00:00:00.000Z" },
      });
      if (applied.kind !== "applied") throw new Error(applied.kind);
      // Back to version 1: no index, no record of version 2.
      await driver.exec(
        `DROP TABLE proposals; DROP INDEX commands_by_key; DELETE FROM schema_migrations WHERE version = 2`,
      );
      const record = (
        outcome: string,
        key: string,
        detail: string | null = `{"args":{},"preview":{"baseRevision":1}}`,
      ) =>
        driver.run(
          `INSERT INTO audit_log (at, tool_name, effect, outcome, workspace_id, document_id, actor_id, holder, idempotency_key,
             payload_fingerprint, base_revision, detail) VALUES (?, 'mnote.page.update_title', 'dry_run', ?, ?, ?, ?, 'agent', ?, 'fp', 1, ?)`,
          [new Date().toISOString(), outcome, ws, doc, owner, key, detail],
        );
      await record("proposal", "k_applied");
      await record("proposal", "k_rejected");
      await record("rejected", "k_rejected", null);
      await record("rejected", "k_rejected_before", null);
      await record("proposal", "k_rejected_before");
      await record("held_for_approval", "k_held");
      await record("ok", "k_read", null);

      expect((await migrate(driver)).applied).toEqual([2]);
      const proposals = await kernel.listProposals({ workspaceId: ws, documentId: doc });
      expect(proposals.map((p) => [p.idempotencyKey, p.status, p.held, p.commandId])).toEqual([
        ["k_held", "pending", true, null],
        ["k_rejected_before", "pending", false, null],
        ["k_rejected", "rejected", false, null],
        ["k_applied", "applied", false, applied.commandId],
      ]);
      expect(proposals[0]).toMatchObject({
        identity: { actorId: owner, holder: "agent" },
        baseRevision: 1,
        summary: null,
      });
      await kernel.close();
    }, 60_000);
  });
}
