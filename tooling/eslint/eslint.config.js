import { baseConfig } from "./base.js";

export default baseConfig("tooling/eslint");
