import { appRouter, createToolsContext } from "@mnote/tools";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getKernel } from "~/server/kernel";
import { tokenFromCookieHeader } from "~/server/session";

export const dynamic = "force-dynamic";

const handler = async (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () =>
      createToolsContext({ kernel: await getKernel(), authorization: tokenFromCookieHeader(req.headers.get("cookie")) }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[panel] ${path} failed`, error.cause ?? error);
    },
  });

export { handler as GET, handler as POST };
