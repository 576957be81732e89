// The repository root's own files: scripts/*.mjs (plain Node, no type information). Each workspace package has
// its own eslint.config.js extending the same base.
import { baseConfig } from "@mnote/eslint-config/base";

export default baseConfig("");
