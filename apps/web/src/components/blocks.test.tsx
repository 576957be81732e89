// @vitest-environment happy-dom
import type { Block } from "@mnote/contract";
import { cleanup, render } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { BlockView } from "./blocks";

afterEach(cleanup);

describe("BlockView formatting (decision 0026)", () => {
  it("renders marks as strong, em, s, code and a safe link; the text stays text", () => {
    const block: Block = {
      id: "p",
      type: "paragraph",
      text: "Ship <b>on</b> Friday, see docs and old code",
      marks: [
        { type: "bold", start: 15, end: 21 },
        { type: "italic", start: 15, end: 18 },
        { type: "link", start: 27, end: 31, href: "https://example.com/docs" },
        { type: "strike", start: 36, end: 39 },
        { type: "code", start: 40, end: 44 },
      ],
    };
    const { container } = render(<BlockView block={block} />);
    expect(container.querySelector("b")).toBeNull();
    expect(container.textContent).toBe(block.text);
    expect(container.querySelector("strong")!.textContent).toBe("Friday");
    expect(container.querySelector("strong em")!.textContent).toBe("Fri");
    const link = container.querySelector("a")!;
    expect(link.getAttribute("href")).toBe("https://example.com/docs");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(link.textContent).toBe("docs");
    expect(container.querySelector("s")!.textContent).toBe("old");
    expect(container.querySelector("code")!.textContent).toBe("code");
  });

  it("never makes a link of a forbidden target, even if one were stored", () => {
    const block = {
      id: "p",
      type: "paragraph",
      text: "click",
      marks: [{ type: "link", start: 0, end: 5, href: "javascript:alert(1)" }],
    } as Block;
    const { container } = render(<BlockView block={block} />);
    expect(container.querySelector("a")).toBeNull();
    expect(container.textContent).toBe("click");
  });

  it("indents list items by their level", () => {
    const { container } = render(
      <>
        <BlockView block={{ id: "a", type: "bulleted", text: "top" }} />
        <BlockView block={{ id: "b", type: "todo", checked: false, text: "nested", indent: 2 }} />
      </>,
    );
    const [top, nested] = [...container.querySelectorAll("p.block")];
    expect(top!.getAttribute("data-indent")).toBe("0");
    expect(nested!.className).toContain("indent-2");
  });
});
