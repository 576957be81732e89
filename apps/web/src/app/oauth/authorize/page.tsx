import { authorizationParams, authorizationQuery } from "@mnote/oauth";
import { AppError } from "@mnote/tools";
import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { ConsentForm, OAuthRefusal, SignInToContinue } from "~/components/oauth-consent";
import { oauthCaller } from "~/server/oauth-endpoints";
import { oauthOptions } from "~/server/oauth-routes";
import { SESSION_COOKIE } from "~/server/session-cookie";

export const dynamic = "force-dynamic";

type Search = Record<string, string | string[] | undefined>;

/** The request's query: as sent, or as it waited in the resume cookie while the person signed in. */
function requestQuery(search: Search): URLSearchParams {
  const resumed = typeof search.resume === "string" ? search.resume : undefined;
  if (resumed) return new URLSearchParams(Buffer.from(resumed, "base64url").toString("utf8"));
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(search))
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, item);
  return query;
}

/**
 * GET /oauth/authorize — the consent page (decision 0027). Every problem is shown here and sends the browser nowhere;
 * a signed-out person sees who asks and signs in to decide; a signed-in person sees the question and answers it.
 */
export default async function Authorize({ searchParams }: { searchParams: Promise<Search> }) {
  const options = oauthOptions();
  if (!options.toolsSettings.oauth) notFound();
  const parsed = authorizationParams(requestQuery(await searchParams));
  if (!parsed.ok) return <OAuthRefusal error={parsed.error} description={parsed.description} />;
  const session = (await cookies()).get(SESSION_COOKIE)?.value ?? null;
  if (session) {
    try {
      const consent = await (await oauthCaller(options, session)).consent.open(parsed.params);
      if (!consent.ok) return <OAuthRefusal error={consent.error} description={consent.description} />;
      return <ConsentForm consent={consent} />;
    } catch (error) {
      // An expired session or an agent's token: the person signs in again, as if signed out.
      const { code } = AppError.from(error);
      if (code !== "mnote_tool_unauthenticated" && code !== "mnote_tool_permission_denied") throw error;
    }
  }
  const vetted = await (await oauthCaller(options, null)).authorize(parsed.params);
  if (!vetted.ok) return <OAuthRefusal error={vetted.error} description={vetted.description} />;
  return <SignInToContinue client={vetted.client} request={authorizationQuery(parsed.params).toString()} />;
}
