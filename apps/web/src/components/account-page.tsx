import Link from "next/link";
import type { ReactNode } from "react";
import type { Me } from "~/trpc/types";
import { SignOutButton } from "./sign-out";

/** A page about the signed-in person's account (agent tokens, a workspace's members): the top bar, then its heading. */
export function AccountPage({ me, title, children }: { me: Me; title: string; children: ReactNode }) {
  return (
    <main className="home">
      <header className="topbar">
        <Link href="/" className="brand">
          mnote · page AI
        </Link>
        <span className="who">
          Signed in as <strong>{me.user?.name}</strong> <SignOutButton />
        </span>
      </header>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
