import { hermesConnection } from "~/server/hermes-door";

export const dynamic = "force-dynamic";

/** Whether "Ask Hermes" is connected (`panel.hermes.connection`; the box explains how to connect it when not). */
export function GET() {
  return hermesConnection();
}
