import { ManualClock, openKernel } from "@mnote/kernel";
import { describe, expect, it } from "vitest";
import { ConfigError, ConfigReader } from "./config";
import { DEFAULT_HOUSEKEEPING, housekeepingScheduler, housekeepingSettingsFromEnv } from "./housekeeping";
import type { Logger } from "./logger";

const DAY = 86_400_000;

function read(env: Record<string, string>) {
  const config = new ConfigReader(env);
  const settings = housekeepingSettingsFromEnv(config);
  config.done();
  return settings;
}

describe("housekeeping settings", () => {
  it("default to a year, reads as long as the rest, every 10 minutes", () => {
    expect(read({})).toEqual(DEFAULT_HOUSEKEEPING);
    expect(read({ MNOTE_AUDIT_RETENTION_DAYS: "90" })).toMatchObject({ auditDays: 90, readDays: 90 });
    expect(read({ MNOTE_AUDIT_RETENTION_DAYS: "90", MNOTE_AUDIT_READ_RETENTION_DAYS: "7" })).toMatchObject({
      auditDays: 90,
      readDays: 7,
    });
  });

  it("refuse reads kept longer than the rest, and values out of range, naming each", () => {
    expect(() => read({ MNOTE_AUDIT_RETENTION_DAYS: "30", MNOTE_AUDIT_READ_RETENTION_DAYS: "31" })).toThrow(
      /MNOTE_AUDIT_READ_RETENTION_DAYS \(31\) may not be longer/,
    );
    expect(() => read({ MNOTE_AUDIT_RETENTION_DAYS: "0", MNOTE_HOUSEKEEPING_INTERVAL_SECONDS: "1" })).toThrow(
      ConfigError,
    );
  });
});

describe("housekeepingScheduler", () => {
  it("sweeps at start and again when the kernel's clock has moved an interval, logging what it removed", async () => {
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const kernel = await openKernel(":memory:", { clock });
    const lines: Array<Record<string, unknown>> = [];
    const logger: Logger = { info: (fields) => void lines.push(fields), warn: () => {}, error: () => {} };
    try {
      const owner = (await kernel.admin.createUser({ name: "Owner" })).id;
      const ws = (await kernel.admin.createWorkspace({ name: "WS", ownerId: owner })).id;
      const identity = {
        toolName: "mnote.workspace.list_pages",
        workspaceId: ws,
        documentId: "",
        actorId: owner,
        tokenId: null,
        holder: "agent" as const,
        sessionId: "s",
        runId: "r",
        toolCallId: "c",
        traceId: "t",
      };
      await kernel.appendAudit({ identity, effect: "read", outcome: "ok" });
      const scheduler = housekeepingScheduler(kernel, logger, { ...DEFAULT_HOUSEKEEPING, auditDays: 10, readDays: 10 });
      expect(scheduler.names()).toEqual(["audit-retention", "expired-records"]);
      await scheduler.tick();
      expect(await kernel.listAudit({ workspaceId: ws })).toHaveLength(1);
      clock.advance(11 * DAY);
      await scheduler.tick();
      expect(await kernel.listAudit({ workspaceId: ws })).toHaveLength(0);
      expect(lines).toContainEqual(expect.objectContaining({ job: "audit-retention", removed: 1 }));
      await scheduler.stop();
    } finally {
      await kernel.close();
    }
  });
});
