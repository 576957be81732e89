import type { Metadata } from "next";
import { connection } from "next/server";
import { TRPCReactProvider } from "~/trpc/react";
import "./globals.css";

export const metadata: Metadata = {
  title: "mnote · page AI",
  description: "Review what the AI wants to change on your pages",
};

/**
 * Rendered per request, every page (the not-found page too): Next puts the response's CSP nonce (proxy.ts) on its
 * scripts only while rendering a request; a page prerendered at build time has none, and the policy would refuse it.
 */
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body>
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
