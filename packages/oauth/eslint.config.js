import { baseConfig } from "@mnote/eslint-config/base";

export default baseConfig("packages/oauth");
