// @vitest-environment happy-dom
import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { createWorld } from "@mnote/tools/testing";
import { cleanup, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Artifacts } from "./artifacts";
import { renderPanelView } from "./test-render";

afterEach(cleanup);

describe("Artifacts", () => {
  it("shows the page's summary and its AI notes, each with the edge that ties it to the page", async () => {
    const w = await createWorld();
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    renderPanelView(<Artifacts pageRef={pageRef} />, w, w.tokens.owner);
    expect(await screen.findByText("No summary yet.")).toBeTruthy();
    expect(screen.getByText("AI notes (0)")).toBeTruthy();
    cleanup();

    const agent = `Bearer ${w.tokens.ownerAgent}`;
    const summary = w.envelope("mnote.artifact.create_summary", { summary: "What the plan says, in short" });
    expect((await w.call("mnote.artifact.create_summary", summary, agent)).ok).toBe(true);
    for (const content of ["First note", "Second note"]) {
      const note = w.envelope("mnote.artifact.create_ai_note", { content });
      expect((await w.call("mnote.artifact.create_ai_note", note, agent)).ok).toBe(true);
    }
    const { container } = renderPanelView(<Artifacts pageRef={pageRef} />, w, w.tokens.owner);
    expect(await screen.findByText("What the plan says, in short")).toBeTruthy();
    expect(screen.getByText("AI notes (2)")).toBeTruthy();
    expect(screen.getByText("First note")).toBeTruthy();
    expect(container.querySelectorAll('[data-kind="ai_note"]')).toHaveLength(2);
    // Every artifact names its edge: none is shown as "missing".
    expect(container.textContent).not.toContain("missing");
    await w.kernel.close();
  });

  it("shows an agent's Markdown as formatting, by the page's rules, keeping its line breaks (issue 36)", async () => {
    const w = await createWorld();
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const agent = `Bearer ${w.tokens.ownerAgent}`;
    const content = "Ready for **review**\nsee [the plan](https://example.com/plan)\n\n- one\n- two";
    const note = w.envelope("mnote.artifact.create_ai_note", { content });
    expect((await w.call("mnote.artifact.create_ai_note", note, agent)).ok).toBe(true);
    const { container } = renderPanelView(<Artifacts pageRef={pageRef} />, w, w.tokens.owner);
    const review = await screen.findByText("review");
    expect(review.closest("strong")).toBeTruthy();
    const item = container.querySelector('[data-kind="ai_note"]')!;
    expect(item.textContent).not.toContain("**");
    expect(item.querySelector("a")!.getAttribute("href")).toBe("https://example.com/plan");
    // The soft line break stays in the paragraph's text (the stylesheet shows it); the list is a list.
    expect(item.querySelector(".markdown-text .paragraph")!.textContent).toMatch(/review\nsee the plan/);
    expect(item.querySelectorAll(".markdown-text .bulleted")).toHaveLength(2);
    await w.kernel.close();
  });

  it("a person who may not read the page sees the router's refusal, not the artifacts", async () => {
    const w = await createWorld();
    const pageRef = { workspaceId: w.ids.ws, documentId: w.ids.page };
    renderPanelView(<Artifacts pageRef={pageRef} />, w, w.tokens.stranger);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain(TOOL_ERROR_MESSAGES.pageUnreadable);
    expect(screen.queryByText(/AI notes/)).toBeNull();
    await w.kernel.close();
  });
});
