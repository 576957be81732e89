import type { PanelHermes } from "@mnote/hermes-runs";
import type { SqlKernel } from "@mnote/kernel";
import { createToolsContext, type ToolsContext, type ToolsSettings } from "@mnote/tools";

/**
 * The panel's one tools context (t3's `createTRPCContext`): every way into the router from the panel — `/api/trpc`,
 * server components, the `/api/hermes/*` adapters, the OAuth endpoints — builds its context here, so each call carries
 * `door: "panel"` (person tokens only) and the panel's validated settings. `authorization` is the session cookie's
 * token (or none); the router resolves it like any other door.
 *
 * Plain (no `server-only`, no `next/*`): the door modules that tests import in Node build their context here too.
 */
export function createPanelContext(input: {
  kernel: SqlKernel;
  authorization: string | null;
  /** The router's settings from the panel's validated configuration (`panelEnv().tools`). */
  settings: Partial<ToolsSettings> | undefined;
  /** The panel's Hermes (`panelHermes()`), for the `panel.hermes.*` procedures; none: they refuse. */
  hermes?: PanelHermes | null;
}): ToolsContext {
  return createToolsContext({
    kernel: input.kernel,
    authorization: input.authorization,
    door: "panel",
    settings: input.settings,
    hermes: input.hermes ?? null,
  });
}
