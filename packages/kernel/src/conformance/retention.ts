import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../clock";
import type { SqlKernel } from "../sql-kernel";
import type { AuditInput, CallIdentity } from "../types";

const DAY = 86_400_000;

/**
 * Retention (retention.ts, decision 0035) on every database: what goes, what is kept because something still needs
 * it, bounded runs, and the expired-records sweep. Time is moved by the kernel's ManualClock, never slept on.
 */
export function retentionSuite(name: string, openKernel: (clock: ManualClock) => Promise<SqlKernel>) {
  describe(`retention: ${name}`, () => {
    async function setUp(start = "2026-01-15T10:00:00.000Z") {
      const clock = new ManualClock(start);
      const kernel = await openKernel(clock);
      const suffix = Math.random().toString(36).slice(2, 8);
      const owner = (await kernel.admin.createUser({ id: `owner_${suffix}`, name: "Owner" })).id;
      const ws = (await kernel.admin.createWorkspace({ id: `ws_${suffix}`, name: "WS", ownerId: owner })).id;
      const doc = (
        await kernel.admin.createPage({ id: `doc_${suffix}`, workspaceId: ws, title: "Plan", createdBy: owner })
      ).id;
      let n = 0;
      const identity = (overrides: Partial<CallIdentity> = {}): CallIdentity => ({
        toolName: "mnote.page.get",
        workspaceId: ws,
        documentId: doc,
        actorId: owner,
        tokenId: null,
        holder: "agent",
        sessionId: "s1",
        runId: "run_other",
        toolCallId: `call_${++n}`,
        traceId: "t1",
        ...overrides,
      });
      const read = (overrides: Partial<CallIdentity> = {}) =>
        kernel.appendAudit({ identity: identity(overrides), effect: "read", outcome: "ok", durationMs: 1 });
      const propose = (key: string): Promise<number> =>
        kernel.appendAudit({
          identity: identity({ toolName: "mnote.page.update_title" }),
          effect: "dry_run",
          outcome: "proposal",
          idempotencyKey: key,
          payloadFingerprint: `fp_${key}`,
          baseRevision: 1,
          detail: { args: { title: key }, preview: { baseRevision: 1 } },
        } satisfies AuditInput);
      const ids = async () =>
        (await kernel.listAudit({ documentId: doc, limit: 1000 })).map((record) => record.id).sort((a, b) => a - b);
      return { clock, kernel, owner, ws, doc, identity, read, propose, ids };
    }

    it("removes what is past retention and keeps a pending proposal's, an applied write's and a running Ask run's records", async () => {
      const t = await setUp();
      try {
        const gone = [await t.read(), await t.read({ runId: "run_ended" })];
        const failed = await t.kernel.appendAudit({
          identity: t.identity({ toolName: "mnote.page.save" }),
          effect: "write",
          outcome: "failed",
          errorCode: "mnote_tool_conflict",
        });
        gone.push(failed);
        const pending = await t.propose("k_pending");
        const decided = await t.propose("k_decided");
        const rejection = await t.kernel.rejectProposal({
          proposalId: decided,
          reason: "no",
          record: {
            identity: t.identity({ toolName: "mnote.page.update_title", holder: "person" }),
            effect: "write",
            outcome: "rejected",
            idempotencyKey: "k_decided",
            payloadFingerprint: "fp_k_decided",
          },
        });
        gone.push(decided, rejection!);
        const applied = await t.kernel.execute({
          identity: t.identity({ toolName: "mnote.page.update_title" }),
          command: { name: "page.head.updateTitle", title: "Kept" },
          idempotency: { key: "k_write", fingerprint: "fp_w", expiresAt: "2999-01-01T00:00:00.000Z" },
        });
        if (applied.kind !== "applied") throw new Error(applied.kind);
        for (const runId of ["run_open", "run_ended"])
          await t.kernel.ask.recordRun({
            runId,
            sessionId: "s1",
            userId: t.owner,
            workspaceId: t.ws,
            documentId: t.doc,
          });
        await t.kernel.ask.appendRunLines("run_ended", ["done"], true);
        const inRun = await t.read({ runId: "run_open" });
        const before = await t.ids();
        expect(before).toHaveLength(8);

        // Inside retention nothing goes.
        t.clock.advance(364 * DAY);
        expect(await t.kernel.housekeeping.sweepAudit(t.clock.now(), { days: 365 })).toMatchObject({ removed: 0 });
        expect(await t.ids()).toEqual(before);

        t.clock.advance(2 * DAY + 60 * DAY);
        const sweep = await t.kernel.housekeeping.sweepAudit(t.clock.now(), { days: 365 });
        expect(sweep.skipped).toBe(0);
        const after = await t.ids();
        const writeRecord = (await t.kernel.getRevertFacts(applied.commandId)).write;
        expect(writeRecord).not.toBeNull();
        expect(after).toEqual([pending, writeRecord!.id, inRun].sort((a, b) => a - b));
        for (const id of gone) expect(await t.kernel.getAudit(id)).toBeNull();
        // The pending proposal is still found, decided, with its preview; the decided one's index row went along.
        expect(await t.kernel.getProposal(pending)).toMatchObject({ status: "pending" });
        expect(await t.kernel.getProposal(decided)).toBeNull();
        expect((await t.kernel.getAudit(pending))?.detail).toEqual({
          args: { title: "k_pending" },
          preview: { baseRevision: 1 },
        });
        // Everything past retention and not needed was removed: row by row, or with its month's partition.
        expect(sweep.removed + sweep.droppedRecords).toBeGreaterThanOrEqual(gone.length);
        if (t.kernel.dialect === "postgres") {
          expect(sweep.partitionsDropped).toBeGreaterThanOrEqual(1);
          expect(sweep.moved).toBe(3);
        }

        // Once the proposal is decided and the run ended, their records go too; the applied write's stays.
        await t.kernel.rejectProposal({
          proposalId: pending,
          reason: "late",
          record: {
            identity: t.identity({ toolName: "mnote.page.update_title", holder: "person" }),
            effect: "write",
            outcome: "rejected",
            idempotencyKey: "k_pending",
            payloadFingerprint: "fp_k_pending",
          },
        });
        await t.kernel.ask.appendRunLines("run_open", ["done"], true);
        t.clock.advance(400 * DAY);
        await t.kernel.housekeeping.sweepAudit(t.clock.now(), { days: 365 });
        expect(await t.ids()).toEqual([writeRecord!.id]);
        expect((await t.kernel.getRevertFacts(applied.commandId)).write?.commandId).toBe(applied.commandId);
      } finally {
        await t.kernel.close();
      }
    }, 60_000);

    // One rule keeps records on every path (retention.ts `neededIds`): on PostgreSQL the first sweep drops the
    // records' month (moving what is needed to the kept partition) and the second removes what is no longer needed
    // from the kept partition row by row; on SQLite both sweeps go row by row. Either way the records left are
    // exactly the ones a pending proposal, an applied write or a running Ask run needs.
    it("keeps exactly the records something still needs, whatever mix of records, decisions and runs (property)", async () => {
      const t = await setUp();
      type Spec = { kind: "read" | "failed" | "proposal" | "applied"; run: "open" | "ended" | "none"; later: boolean };
      const spec = fc.record({
        kind: fc.constantFrom("read", "failed", "proposal", "applied"),
        run: fc.constantFrom("open", "ended", "none"),
        later: fc.boolean(),
      }) as fc.Arbitrary<Spec>;
      let round = 0;
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 8 }), fc.boolean(), async (specs, endRun) => {
            round += 1;
            const doc = (
              await t.kernel.admin.createPage({
                id: `doc_p${round}_${Math.random().toString(36).slice(2, 8)}`,
                workspaceId: t.ws,
                title: "Plan",
                createdBy: t.owner,
              })
            ).id;
            const runs = { open: `run_open_${doc}`, ended: `run_ended_${doc}`, none: `run_none_${doc}` };
            for (const runId of [runs.open, runs.ended])
              await t.kernel.ask.recordRun({
                runId,
                sessionId: "s1",
                userId: t.owner,
                workspaceId: t.ws,
                documentId: doc,
              });
            await t.kernel.ask.appendRunLines(runs.ended, ["done"], true);
            const records: { id: number; spec: Spec }[] = [];
            for (const [index, one] of specs.entries()) {
              const identity = t.identity({
                documentId: doc,
                runId: runs[one.run],
                toolName: "mnote.page.update_title",
              });
              const key = `k_${doc}_${index}`;
              let id: number;
              if (one.kind === "read")
                id = await t.kernel.appendAudit({
                  identity: { ...identity, toolName: "mnote.page.get" },
                  effect: "read",
                  outcome: "ok",
                });
              else if (one.kind === "failed")
                id = await t.kernel.appendAudit({
                  identity,
                  effect: "write",
                  outcome: "failed",
                  errorCode: "mnote_tool_conflict",
                });
              else if (one.kind === "proposal")
                id = await t.kernel.appendAudit({
                  identity,
                  effect: "dry_run",
                  outcome: "proposal",
                  idempotencyKey: key,
                  payloadFingerprint: `fp_${key}`,
                  baseRevision: 1,
                  detail: { args: { title: key }, preview: { baseRevision: 1 } },
                });
              else {
                const applied = await t.kernel.execute({
                  identity,
                  command: { name: "page.head.updateTitle", title: key },
                  idempotency: { key, fingerprint: `fp_${key}`, expiresAt: "2999-01-01T00:00:00.000Z" },
                });
                if (applied.kind !== "applied") throw new Error(applied.kind);
                id = (await t.kernel.getRevertFacts(applied.commandId)).write!.id;
              }
              records.push({ id, spec: one });
            }
            const ids = async () =>
              (await t.kernel.listAudit({ documentId: doc, limit: 1000 }))
                .map((record) => record.id)
                .sort((a, b) => a - b);
            const expected = (decided: boolean, runEnded: boolean) =>
              records
                .filter(({ spec: one }) => {
                  if (one.kind === "applied") return true;
                  if (one.kind === "proposal" && !(decided && one.later)) return true;
                  return one.run === "open" && !runEnded;
                })
                .map((record) => record.id)
                .sort((a, b) => a - b);

            t.clock.advance(400 * DAY);
            await t.kernel.housekeeping.sweepAudit(t.clock.now(), { days: 365 });
            expect(await ids()).toEqual(expected(false, false));

            // Decide some proposals, maybe end the run: what only they kept goes with the next sweep.
            for (const { id, spec: one } of records)
              if (one.kind === "proposal" && one.later)
                await t.kernel.rejectProposal({
                  proposalId: id,
                  reason: "late",
                  record: {
                    identity: t.identity({ documentId: doc, toolName: "mnote.page.update_title", holder: "person" }),
                    effect: "write",
                    outcome: "rejected",
                  },
                });
            if (endRun) await t.kernel.ask.appendRunLines(runs.open, ["done"], true);
            t.clock.advance(400 * DAY);
            await t.kernel.housekeeping.sweepAudit(t.clock.now(), { days: 365 });
            expect(await ids()).toEqual(expected(true, endRun));
          }),
          { numRuns: 8 },
        );
      } finally {
        await t.kernel.close();
      }
    }, 240_000);

    it("lets reads go sooner than the rest, in bounded runs that pick up where there is more", async () => {
      const t = await setUp();
      try {
        for (let i = 0; i < 5; i++) await t.read();
        const failed = await t.kernel.appendAudit({
          identity: t.identity({ toolName: "mnote.page.save" }),
          effect: "write",
          outcome: "failed",
          errorCode: "mnote_tool_conflict",
        });
        t.clock.advance(40 * DAY);
        const fresh = await t.read();
        const retention = { days: 365, readDays: 30, batchSize: 2, maxBatches: 1 };
        const first = await t.kernel.housekeeping.sweepAudit(t.clock.now(), retention);
        expect(first).toMatchObject({ removed: 2, more: 1, partitionsDropped: 0 });
        await t.kernel.housekeeping.sweepAudit(t.clock.now(), retention);
        await t.kernel.housekeeping.sweepAudit(t.clock.now(), retention);
        const last = await t.kernel.housekeeping.sweepAudit(t.clock.now(), { ...retention, maxBatches: 10 });
        expect(last.more).toBe(0);
        expect(await t.ids()).toEqual([failed, fresh]);
      } finally {
        await t.kernel.close();
      }
    }, 60_000);

    it("sweeps expired idempotency records and tokens long ended, and keeps what still grants or blocks", async () => {
      const t = await setUp();
      try {
        const soon = new Date(t.clock.now().getTime() + DAY).toISOString();
        const late = new Date(t.clock.now().getTime() + 30 * DAY).toISOString();
        for (const [key, expiresAt] of [
          ["k_soon", soon],
          ["k_late", late],
        ] as const) {
          const outcome = await t.kernel.execute({
            identity: t.identity({ toolName: "mnote.page.update_title" }),
            command: { name: "page.head.updateTitle", title: key },
            idempotency: { key, fingerprint: "fp", expiresAt },
          });
          expect(outcome.kind).toBe("applied");
        }
        const expiring = await t.kernel.admin.createToken({
          userId: t.owner,
          holder: "agent",
          scopes: ["page.read"],
          ttlSeconds: 3600,
        });
        const revoked = await t.kernel.admin.createToken({ userId: t.owner, holder: "agent", scopes: ["page.read"] });
        await t.kernel.admin.revokeToken(revoked.record.id);
        const forever = await t.kernel.admin.createToken({ userId: t.owner, holder: "agent", scopes: ["page.read"] });
        const tokenIds = async () => (await t.kernel.admin.listTokens(t.owner)).map((token) => token.id).sort();

        t.clock.advance(2 * DAY);
        const first = await t.kernel.housekeeping.sweepExpired(t.clock.now(), { tokenGraceDays: 30 });
        expect(first).toMatchObject({ idempotency: 1, tokens: 0, skipped: 0 });
        const keys = async () =>
          ((await t.kernel.admin.tableSnapshot()).idempotency as Array<{ key: string }>).map((row) => row.key);
        expect(await keys()).toEqual(["k_late"]);
        expect(await tokenIds()).toHaveLength(3);

        t.clock.advance(40 * DAY);
        const second = await t.kernel.housekeeping.sweepExpired(t.clock.now(), { tokenGraceDays: 30 });
        expect(second).toMatchObject({ idempotency: 1, tokens: 2 });
        expect(await tokenIds()).toEqual([forever.record.id]);
        expect(expiring.record.id).not.toBe(forever.record.id);
      } finally {
        await t.kernel.close();
      }
    }, 60_000);
  });
}
