import { describe, expect, it } from "vitest";
import { type AuditRow, type CommandRow, type PageRow, toAudit, toCommand, toPage } from "./rows";

// node-postgres hands BIGINT and NUMERIC columns over as strings; the PostgreSQL drivers turn int8 into numbers,
// and the row mapping must not depend on that.
describe("row mapping with numbers as strings", () => {
  it("maps page, command and audit numbers with Number()", () => {
    const page = toPage({
      id: "d",
      workspace_id: "w",
      title: "T",
      is_private: "1",
      options: "{}",
      revision: "7",
      block_count: "3",
    } as unknown as PageRow);
    expect(page).toMatchObject({ revision: 7, isPrivate: true });
    const command = toCommand({
      id: "c",
      name: "page.head.updateTitle",
      tool_name: "t",
      workspace_id: "w",
      document_id: "d",
      actor_id: "a",
      token_id: null,
      holder: null,
      session_id: null,
      run_id: null,
      tool_call_id: null,
      trace_id: null,
      payload_fingerprint: "f",
      idempotency_key: "k",
      revision_before: "6",
      revision_after: "7",
      undo: null,
      created_at: "now",
    } as unknown as CommandRow);
    expect(command).toMatchObject({ revisionBefore: 6, revisionAfter: 7 });
    const audit = toAudit({
      id: "9007199254740991",
      at: "now",
      tool_name: "t",
      workspace_id: "w",
      document_id: "d",
      actor_id: "a",
      token_id: null,
      holder: null,
      session_id: null,
      run_id: null,
      tool_call_id: null,
      trace_id: null,
      effect: "write",
      outcome: "ok",
      error_code: null,
      command_id: null,
      idempotency_key: null,
      payload_fingerprint: null,
      base_revision: "3",
      detail: null,
      duration_ms: "12",
    } as unknown as AuditRow);
    expect(audit).toMatchObject({ id: 9007199254740991, baseRevision: 3, durationMs: 12 });
  });
});
