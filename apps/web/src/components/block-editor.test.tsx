// @vitest-environment happy-dom
import { type Block, LIMITS } from "@mnote/contract";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BlockEditor } from "./block-editor";

afterEach(cleanup);

const proposed: Block = {
  id: "b1",
  type: "paragraph",
  text: "Standup on Friday, see the plan",
  marks: [
    { type: "bold", start: 11, end: 17 },
    { type: "link", start: 23, end: 31, href: "https://example.com/plan" },
  ],
};

function editor(block: Block = proposed) {
  const onSave = vi.fn();
  render(<BlockEditor block={block} label="Edit" onSave={onSave} onCancel={() => undefined} />);
  const box = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Text (Markdown)" });
  const save = () => fireEvent.click(screen.getByRole("button", { name: "Keep my edit" }));
  return { onSave, box, save };
}

describe("editing a suggestion keeps its formatting (issue 32 item 6)", () => {
  it("shows the block's marks as Markdown and, unchanged, gives back the same block", () => {
    const { box, save, onSave } = editor();
    expect(box.value).toBe("Standup on **Friday**, see [the plan](https://example.com/plan)");
    save();
    expect(onSave).toHaveBeenCalledWith(proposed);
  });

  it("stores **Monday** typed in the box as bold text, and keeps the link", () => {
    const { box, save, onSave } = editor();
    fireEvent.change(box, { target: { value: box.value.replace("**Friday**", "**Monday**") } });
    expect(screen.getByTestId("edit-preview").querySelector("strong")!.textContent).toBe("Monday");
    save();
    expect(onSave).toHaveBeenCalledWith({ ...proposed, text: "Standup on Monday, see the plan" });
  });

  it("refuses a link the page cannot hold with the reason, and keeps nothing", () => {
    const { box, save, onSave } = editor();
    fireEvent.change(box, { target: { value: "see [it](javascript:alert(1))" } });
    save();
    expect(onSave).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toMatch(/a link to "javascript:alert\(1\)".*Nothing was kept/);
    expect(box.getAttribute("aria-invalid")).toBe("true");
  });

  it("a code block's box is its text as it is: asterisks stay asterisks", () => {
    const onSave = vi.fn();
    render(
      <BlockEditor
        block={{ id: "c", type: "code", language: "js", text: "a ** b" }}
        label="Edit"
        onSave={onSave}
        onCancel={() => undefined}
      />,
    );
    const box = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Text" });
    fireEvent.change(box, { target: { value: "x **y**" } });
    fireEvent.click(screen.getByRole("button", { name: "Keep my edit" }));
    expect(onSave).toHaveBeenCalledWith({ id: "c", type: "code", language: "js", text: "x **y**" });
  });

  it("counts down to the contract's limit on the block's text, and past it sends nothing and keeps the text (issue 36)", () => {
    const { box, save, onSave } = editor();
    const shown = () => screen.getByTestId("characters-left").textContent;
    // Counted on the text the block will hold: the Markdown's stars and link target are not text.
    expect(shown()).toBe(`${(LIMITS.blockTextLength - proposed.text.length).toLocaleString("en")} characters left`);
    const tooLong = `**${"x".repeat(LIMITS.blockTextLength + 5)}**`;
    fireEvent.change(box, { target: { value: tooLong } });
    expect(shown()).toMatch(/^5 characters too many/);
    save();
    expect(onSave).not.toHaveBeenCalled();
    expect(box.value).toBe(tooLong);
    expect(box.getAttribute("aria-invalid")).toBe("true");
  });
});
