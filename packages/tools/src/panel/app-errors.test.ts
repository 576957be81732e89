import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { createToolsContext } from "../context";
import { createCaller } from "../root";
import { createWorld } from "../test-support";

describe("panel: a database that cannot answer", () => {
  it("answers 503 unavailable without the driver's message, like the tools' envelope", async () => {
    const w = await createWorld();
    const panel = createCaller(
      createToolsContext({ kernel: w.kernel, authorization: `Bearer ${w.tokens.owner}`, door: "panel" }),
    ).panel;
    await expect(panel.pages.list({ workspaceId: w.ids.ws })).resolves.toBeDefined();
    // A closed database is a real driver failure: every statement now throws.
    await w.kernel.close();
    const failure = await panel.pages.list({ workspaceId: w.ids.ws }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TRPCError);
    expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: TOOL_ERROR_MESSAGES.unavailable });
    const envelope = await w.call("mnote.page.get", w.envelope("mnote.page.get", {}));
    expect(envelope.error).toEqual({ code: "mnote_tool_unavailable", message: TOOL_ERROR_MESSAGES.unavailable });
  });
});
