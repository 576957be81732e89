import { describe, expect, it } from "vitest";
import { counted } from "./counted";

describe("counted", () => {
  it("says one in the singular and any other count in the plural", () => {
    expect(counted(1, "block")).toBe("1 block");
    expect(counted(0, "block")).toBe("0 blocks");
    expect(counted(12, "change")).toBe("12 changes");
    expect(counted(2, "reply", "replies")).toBe("2 replies");
  });
});
