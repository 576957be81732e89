import { TOOL_ERROR_CODES, TOOL_ERROR_HTTP_STATUS, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError, isAppError, toTRPCError } from "./app-error";
import { createWorld } from "./test-support";

describe("AppError: one error type, mapped once", () => {
  it.each(TOOL_ERROR_CODES)("%s: the panel answers the HTTP status the bridge answers", (code) => {
    const trpc = toTRPCError(new AppError(code, "why"));
    expect(getHTTPStatusCodeFromError(trpc)).toBe(TOOL_ERROR_HTTP_STATUS[code]);
    expect(AppError.from(trpc)).toMatchObject({ code, message: "why" });
    expect(isAppError(trpc)).toBe(true);
  });

  it("reads tRPC's own refusals as contract codes, and anything else as unavailable without its message", () => {
    const parsed = z.object({ workspaceId: z.string().max(3) }).safeParse({ workspaceId: "toolong" });
    const inputRefusal = new TRPCError({ code: "BAD_REQUEST", cause: parsed.error! });
    expect(AppError.from(inputRefusal)).toMatchObject({
      code: "mnote_tool_invalid_input",
      message: expect.stringMatching(/^invalid input: workspaceId: /),
    });
    expect(AppError.from(new TRPCError({ code: "NOT_FOUND", message: "No procedure found" }))).toMatchObject({
      code: "mnote_tool_not_found",
    });
    for (const unexpected of [new Error("connect ECONNREFUSED 10.0.0.5:5432"), "boom", null]) {
      expect(AppError.from(unexpected)).toMatchObject({
        code: "mnote_tool_unavailable",
        message: TOOL_ERROR_MESSAGES.unavailable,
      });
      expect(isAppError(unexpected)).toBe(false);
    }
  });

  it("a panel procedure's refusal carries its contract code, and a page refused fails as the tools' check does", async () => {
    const w = await createWorld();
    const panelAs = (token: string) => w.caller(`Bearer ${token}`, "panel").panel;
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const refusal = await panelAs(w.tokens.stranger)
      .audit.list(ref)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      code: "FORBIDDEN",
      cause: { code: "mnote_tool_permission_denied", message: TOOL_ERROR_MESSAGES.pageUnreadable },
    });
    // The tool chain says the same to the same person about the same page.
    const envelope = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { actorId: w.ids.stranger }),
      `Bearer ${w.tokens.stranger}`,
    );
    expect(envelope.error).toEqual({
      code: "mnote_tool_permission_denied",
      message: TOOL_ERROR_MESSAGES.pageUnreadable,
    });
    const badInput = await panelAs(w.tokens.owner)
      .pages.list({ workspaceId: "x".repeat(200) })
      .catch((error: unknown) => error);
    expect(badInput).toMatchObject({ code: "UNPROCESSABLE_CONTENT", cause: { code: "mnote_tool_invalid_input" } });
    await w.kernel.close();
  });
});
