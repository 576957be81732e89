import { clipEcho } from "./limits";

/** What a schema's refusal carries (a `ZodError`, or its `issues`): where, and what is wrong there. */
export interface SchemaIssues {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}

/**
 * The one way a schema's refusal becomes words, on every door and package: `field.path: problem`, at most `max`
 * issues joined by `; `. Both the path and the message are clipped (`clipEcho`): zod quotes what the caller sent
 * (an unknown 3 MB key, a 3 MB enum value), and an answer never echoes more than `LIMITS.echoLength` of it.
 * `root` names an issue on the value itself (no path); `prefix` is where the parsed value sits in the caller's input.
 */
export function describeIssues(
  error: SchemaIssues,
  options: { root?: string; prefix?: readonly PropertyKey[]; max?: number } = {},
): string {
  const { root = "input", prefix = [], max = 3 } = options;
  return error.issues
    .slice(0, max)
    .map((issue) => {
      const path = [...prefix, ...issue.path].map(String).join(".");
      return `${path ? clipEcho(path) : root}: ${clipEcho(issue.message)}`;
    })
    .join("; ");
}
