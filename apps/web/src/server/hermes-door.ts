import "server-only";
import { TOOL_ERROR_HTTP_STATUS, TOOL_ERROR_MESSAGES } from "@mnote/contract";
import { ndjson, type NumberedRunLine, PanelHermes } from "@mnote/hermes-runs";
import { AppError, createCaller } from "@mnote/tools";
import { isTrackedEnvelope } from "@trpc/server";
import { createPanelContext } from "./context";
import { panelEnv } from "./env";
import { getKernel } from "./kernel";
import { openPanelDoor, refuse } from "./panel-api";
import { panelLimiter } from "./rate-limit";

/**
 * `/api/hermes/*`: HTTP adapters of the router's Ask Hermes procedures (`panel.hermes.*`, decision 0043) for what
 * speaks plain HTTP — the start script's "is Hermes connected" and the flows' door checks. The browser calls the
 * same procedures over /api/trpc. Each route is the panel's one door (`openPanelDoor`: Origin, token, rate limit,
 * body cap), then one procedure call; every decision is the procedure's, every refusal the contract's.
 */

const shared = globalThis as { __mnotePanelHermes?: PanelHermes };

/** The panel's Hermes, one per server process (on globalThis: Next's route bundles each load this module). */
export function panelHermes(): PanelHermes | null {
  const connection = panelEnv().hermes;
  if (!connection) return null;
  shared.__mnotePanelHermes ??= new PanelHermes(connection);
  return shared.__mnotePanelHermes;
}

type Caller = ReturnType<typeof createCaller>;
const NO_STORE = { "cache-control": "no-store" };

/** The router's refusal (an AppError, or tRPC's refusal of the input) in the contract's shape and status. */
function refusalOf(error: unknown): Response {
  const { code, message } = AppError.from(error);
  return refuse(TOOL_ERROR_HTTP_STATUS[code], code, message);
}

/** The panel's door, then the router's caller for the signed-in person, and the JSON body of a POST. */
async function openDoor(req: Request, signal?: AbortSignal): Promise<{ caller: Caller; body: object } | Response> {
  const env = panelEnv();
  const door = await openPanelDoor(req, {
    kernel: getKernel,
    limiter: panelLimiter(),
    allowedOrigins: env.allowedOrigins,
  });
  if (door instanceof Response) return door;
  let body: object = {};
  if (door.body.byteLength) {
    try {
      // Any JSON: the procedure's input schema refuses what is not its input.
      body = JSON.parse(new TextDecoder().decode(door.body)) as object;
    } catch {
      return refuse(
        TOOL_ERROR_HTTP_STATUS.mnote_tool_invalid_input,
        "mnote_tool_invalid_input",
        "the request body is not JSON",
      );
    }
  }
  const ctx = createPanelContext({
    kernel: door.kernel,
    authorization: door.authorization,
    settings: env.tools,
    hermes: panelHermes(),
  });
  return { caller: createCaller(ctx, signal ? { signal } : undefined), body };
}

/**
 * One route: the door, one procedure call with the body (the procedure parses it) or the path's run id, its answer
 * as JSON with `status`.
 */
export async function callHermes(
  req: Request,
  call: (caller: Caller["panel"]["hermes"], body: object) => Promise<unknown>,
  status = 200,
): Promise<Response> {
  const door = await openDoor(req);
  if (door instanceof Response) return door;
  try {
    return Response.json(await call(door.caller.panel.hermes, door.body), { status, headers: NO_STORE });
  } catch (error) {
    return refusalOf(error);
  }
}

/** GET /api/hermes — may this panel ask Hermes now? No door: it says nothing of anyone (never Hermes's URL or key). */
export async function hermesConnection(): Promise<Response> {
  try {
    const kernel = await getKernel();
    const caller = createCaller(
      createPanelContext({ kernel, authorization: null, settings: panelEnv().tools, hermes: panelHermes() }),
    );
    return Response.json(await caller.panel.hermes.connection(), { headers: NO_STORE });
  } catch {
    return refuse(503, "mnote_tool_unavailable", TOOL_ERROR_MESSAGES.unavailable, { "retry-after": "1" });
  }
}

/**
 * GET /api/hermes/runs/{runId}/events?after=N[&reload=1] — `panel.hermes.events` as newline-delimited JSON
 * (`NumberedRunLine`). A refusal (not the person's run) is answered before the stream starts; the browser going
 * away stops the reading, not the run.
 */
export async function runEvents(req: Request, runId: string): Promise<Response> {
  const door = await openDoor(req, req.signal);
  if (door instanceof Response) return door;
  const query = new URL(req.url).searchParams;
  let lines: AsyncIterator<unknown>;
  let first: IteratorResult<unknown>;
  try {
    const events = await door.caller.panel.hermes.events({
      runId,
      after: Number(query.get("after") ?? 0),
      reload: query.get("reload") === "1",
    });
    lines = events[Symbol.asyncIterator]();
    first = await lines.next();
  } catch (error) {
    return refusalOf(error);
  }
  const line = (value: unknown) => (isTrackedEnvelope(value) ? value[1] : value) as NumberedRunLine;
  async function* rest(): AsyncGenerator<NumberedRunLine> {
    try {
      for (let next = first; !next.done; next = await lines.next()) yield line(next.value);
    } finally {
      await lines.return?.(undefined);
    }
  }
  return new Response(ndjson(rest()), {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", ...NO_STORE, "x-accel-buffering": "no" },
  });
}
