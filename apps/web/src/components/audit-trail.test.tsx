// @vitest-environment happy-dom
import { createWorld } from "@mnote/tools/testing";
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { AuditTrail } from "./audit-trail";
import { renderPanelView } from "./test-render";

afterEach(cleanup);

describe("AuditTrail", () => {
  it("lists every call on the page and filters by run when a run id is clicked", async () => {
    const w = await createWorld();
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    renderPanelView(<AuditTrail pageRef={pageRef} onReverted={() => {}} />, w, w.tokens.owner);
    expect(await screen.findByTestId("audit-empty")).toBeTruthy();
    cleanup();

    const agent = `Bearer ${w.tokens.ownerAgent}`;
    await w.call("mnote.page.get", w.envelope("mnote.page.get", {}, { runId: "run_read" }), agent);
    const save = w.envelope(
      "mnote.page.save",
      { content: [{ type: "paragraph", text: "added" }], mode: "append" },
      { runId: "run_write" },
    );
    expect((await w.call("mnote.page.save", save, agent)).ok).toBe(true);

    const { container } = renderPanelView(<AuditTrail pageRef={pageRef} onReverted={() => {}} />, w, w.tokens.owner);
    await waitFor(() => expect(container.querySelectorAll("tbody tr")).toHaveLength(2));
    expect([...container.querySelectorAll("tbody tr")].map((row) => row.getAttribute("data-effect"))).toEqual([
      "write",
      "read",
    ]);
    fireEvent.click(screen.getByRole("button", { name: "run_read" }));
    await waitFor(() => expect(container.querySelectorAll("tbody tr")).toHaveLength(1));
    expect(container.querySelector("tbody tr")!.getAttribute("data-effect")).toBe("read");
    expect(screen.getByPlaceholderText<HTMLInputElement>("runId").value).toBe("run_read");
    fireEvent.click(screen.getByRole("button", { name: "Clear" }));
    await waitFor(() => expect(container.querySelectorAll("tbody tr")).toHaveLength(2));
    await w.kernel.close();
  });
});
