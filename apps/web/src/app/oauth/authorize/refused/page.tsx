import { OAuthRefusal, refusalSentence } from "~/components/oauth-consent";

export const dynamic = "force-dynamic";

/** Where a refused consent form lands: why, in the panel's words (the reason is a key, nothing of it is echoed). */
export default async function Refused({ searchParams }: { searchParams: Promise<{ reason?: string }> }) {
  const { reason } = await searchParams;
  return <OAuthRefusal error="invalid_request" description={refusalSentence(reason)} />;
}
