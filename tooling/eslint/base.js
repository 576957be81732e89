// The one ESLint configuration every workspace package extends (create-t3-turbo style): type-aware rules through
// typescript-eslint's project service (each file is checked with its own package's tsconfig, no list of projects to
// keep in sync), formatting left to Prettier.
import js from "@eslint/js";
import { fileURLToPath } from "node:url";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

/** The repository root (this file is tooling/eslint/base.js). */
const REPOSITORY_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The modules allowed to read `process.env`, relative to the repository root. Each process validates its
 * configuration once, in its config module, and passes the result in; everything else takes values as arguments,
 * so a bad value stops the process at start instead of failing calls later (issue 15, decision 0020).
 */
export const CONFIG_MODULES = [
  // `mnote-bridge serve | mcp --stdio | hermes …`
  "apps/hermes-bridge/src/config.ts",
  // `mnote …` (the operator CLI)
  "apps/cli/src/config.ts",
  // The panel: its env module, and the instrumentation hook that checks it at start. Next inlines NEXT_RUNTIME at
  // build time, and the hook must read it before importing anything Node-only, so it cannot go through env.ts.
  "apps/web/src/server/env.ts",
  "apps/web/src/instrumentation.ts",
];

/**
 * Code that is not a product process (tests, their fixtures, harnesses, benchmarks, scripts) starts and configures
 * processes of its own, so it may read and set the environment.
 */
export const HARNESS_FILES = [
  "**/*.test.ts",
  "**/*.test.tsx",
  "**/test-support.ts",
  "**/test-databases.ts",
  "**/*.fixture.ts",
  "packages/kernel/src/conformance/**",
  "**/testing/**",
  "e2e/**/*.{ts,tsx,js,mjs}",
  "bench/**/*.{ts,tsx,js,mjs}",
  "reliability/**/*.{ts,tsx,js,mjs}",
  "scripts/**/*.{ts,tsx,js,mjs}",
  "**/*.mjs",
  "**/*.config.ts",
  "**/*.config.js",
];

const restrictEnvAccess = {
  rules: {
    "no-restricted-properties": [
      "error",
      {
        object: "process",
        property: "env",
        message: `Read configuration in the process's config module (${CONFIG_MODULES.join(", ")}) and pass it in.`,
      },
    ],
    "no-restricted-imports": [
      "error",
      {
        paths: [{ name: "process", importNames: ["env"], message: "Use the process's config module instead." }],
      },
    ],
  },
};

/**
 * @param {string} root the linted package's directory relative to the repository root ("" for the root), so that
 *   CONFIG_MODULES and HARNESS_FILES (written from the root) match the paths ESLint sees inside the package.
 */
export function baseConfig(root = "") {
  const prefix = root ? `${root.replace(/\/+$/, "")}/` : "";
  const local = (pattern) =>
    pattern.startsWith("**/") ? pattern : pattern.startsWith(prefix) ? pattern.slice(prefix.length) : null;
  const configModules = CONFIG_MODULES.map(local).filter(Boolean);
  // Inside e2e/, bench/, reliability/ or scripts/ this is "**/*.{ts,…}": every file there is harness code.
  const harness = HARNESS_FILES.map(local).filter(Boolean);

  return defineConfig(
    {
      ignores: [
        "**/node_modules/**",
        "**/.next/**",
        "**/dist/**",
        "**/.turbo/**",
        "**/.cache/**",
        "**/next-env.d.ts",
        "**/test-results/**",
        "**/playwright-report/**",
      ],
    },
    { linterOptions: { reportUnusedDisableDirectives: "error" } },
    js.configs.recommended,
    {
      files: ["**/*.ts", "**/*.tsx", "**/*.mts"],
      extends: [tseslint.configs.recommendedTypeChecked],
      languageOptions: {
        parserOptions: {
          // Files outside every tsconfig (vitest/playwright/next configs) still get type information.
          // One ESLint process lints every package (`pnpm lint`), so the default project holds every package's
          // vitest.config.ts (13 small files, not the hundreds of sources the limit of 8 guards against).
          projectService: {
            allowDefaultProject: ["vitest.config.ts"],
            maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 20,
          },
          // Explicit, so that one ESLint process can lint several packages (`pnpm lint` at the root): each file's
          // tsconfig and allowDefaultProject are found from its own package's directory.
          tsconfigRootDir: `${REPOSITORY_ROOT}${prefix}`,
        },
      },
      rules: {
        // A promise nobody awaits loses its rejection; say `void` where fire-and-forget is meant.
        "@typescript-eslint/no-floating-promises": "error",
        "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
        // `import type` is erased: a type-only import never loads a module (and never makes an import cycle).
        "@typescript-eslint/consistent-type-imports": [
          "error",
          { prefer: "type-imports", fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
        ],
        "@typescript-eslint/no-unused-vars": [
          "error",
          { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
        ],
        // An async function turns a throw into a rejection; a planner or handler typed to return a promise stays
        // `async` even when today's body awaits nothing.
        "@typescript-eslint/require-await": "off",
        "no-restricted-syntax": [
          "error",
          {
            // `PageRecord & { }` says nothing; the rule for empty object types leaves intersections alone.
            selector: "TSIntersectionType > TSTypeLiteral[members.length=0]",
            message: "An intersection with an empty object type adds nothing: remove it.",
          },
        ],
      },
    },
    {
      // Tests and harnesses read JSON answers from real processes and databases: typing every one of them is noise,
      // and a wrong shape fails the test anyway. Product code keeps the no-unsafe-* rules.
      files: harness,
      rules: {
        "@typescript-eslint/no-explicit-any": "off",
        "@typescript-eslint/no-unsafe-argument": "off",
        "@typescript-eslint/no-unsafe-assignment": "off",
        "@typescript-eslint/no-unsafe-call": "off",
        "@typescript-eslint/no-unsafe-member-access": "off",
        "@typescript-eslint/no-unsafe-return": "off",
      },
    },
    {
      rules: {
        // One import statement per module (type-only names go inline: `import { type A, b } from "x"`).
        "no-duplicate-imports": ["error", { includeExports: false }],
      },
    },
    {
      files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
      languageOptions: { globals: { ...globals.node } },
    },
    { ...restrictEnvAccess, ignores: [...configModules, ...harness] },
  );
}
