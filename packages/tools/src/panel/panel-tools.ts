import type { RESOLVE_TOOL_NAME } from "./comment-resolve-tool";
import type { REVERT_TOOL_NAME } from "./revert-tool";

/** The panel's own writes, recorded under these tool names (typed so the panel's labels list each). */
export type PanelToolName = typeof REVERT_TOOL_NAME | typeof RESOLVE_TOOL_NAME;
