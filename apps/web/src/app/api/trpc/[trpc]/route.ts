import { getKernel } from "~/server/kernel";
import { panelEnv } from "~/server/env";
import { panelHermes } from "~/server/hermes-door";
import { handlePanelApi } from "~/server/panel-api";
import { panelLimiter } from "~/server/rate-limit";

export const dynamic = "force-dynamic";

/** The router at the panel's door: person tokens only, same-origin changes, the bridge's size and rate limits. */
const handler = (req: Request) =>
  handlePanelApi(req, {
    kernel: getKernel,
    limiter: panelLimiter(),
    allowedOrigins: panelEnv().allowedOrigins,
    toolsSettings: panelEnv().tools,
    hermes: panelHermes(),
  });

export { handler as GET, handler as POST };
