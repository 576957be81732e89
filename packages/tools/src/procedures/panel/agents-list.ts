import { agentTokensOf } from "../../panel/agents";
import { panelProcedure } from "../../panel/panel-procedure";

/** panel.agents.list — the signed-in person's agent tokens, newest first, with their last use. */
export const agentsList = panelProcedure.query(({ ctx }) => agentTokensOf(ctx));
