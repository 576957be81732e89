import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeIssues } from "./issues";
import { LIMITS } from "./limits";

const Schema = z.strictObject({ title: z.string().max(3), tags: z.array(z.enum(["a", "b"])) });

describe("describeIssues", () => {
  it("names each issue by its path, at most three unless told", () => {
    const parsed = Schema.safeParse({ title: "long", tags: ["c"], x: 1, y: 2 });
    expect(parsed.success).toBe(false);
    const words = describeIssues(parsed.error!);
    expect(words.split("; ")).toHaveLength(3);
    expect(words).toMatch(/^title: /);
    expect(words).toContain("tags.0: ");
    expect(describeIssues(parsed.error!, { max: 1 }).split("; ")).toHaveLength(1);
  });

  it("names an issue on the value itself by its root, and a prefix places the value in the caller's input", () => {
    const parsed = z.string().safeParse(3);
    expect(describeIssues(parsed.error!, { root: "body" })).toMatch(/^body: /);
    const nested = Schema.safeParse({ title: "ok", tags: [3] });
    expect(describeIssues(nested.error!, { prefix: ["_mnote"] })).toMatch(/^_mnote\.tags\.0: /);
  });

  it("clips what the caller sent: a 100 kB unknown key is quoted at most LIMITS.echoLength characters", () => {
    const key = "k".repeat(100_000);
    const parsed = Schema.safeParse({ title: "ok", tags: [], [key]: 1 });
    const words = describeIssues(parsed.error!);
    expect(words.length).toBeLessThan(3 * (LIMITS.echoLength + 10));
    expect(words).toContain("…");
  });
});
