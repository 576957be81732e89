import { TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { appRouter, createToolsContext } from "@mnote/tools";
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getKernel } from "~/server/kernel";
import { tokenFromCookieHeader } from "~/server/session";

export const dynamic = "force-dynamic";

/** The database could not be opened (getKernel tries again next time): 503, not a 500 quoting the driver. */
async function openedKernel() {
  try {
    return await getKernel();
  } catch (error) {
    console.error("[panel] the database could not be opened", error);
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: TOOL_ERROR_MESSAGES.unavailable });
  }
}

const handler = async (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () =>
      createToolsContext({ kernel: await openedKernel(), authorization: tokenFromCookieHeader(req.headers.get("cookie")) }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[panel] ${path} failed`, error.cause ?? error);
    },
  });

export { handler as GET, handler as POST };
