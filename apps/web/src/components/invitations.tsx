"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "~/trpc/react";
import { useHydrated } from "./use-hydrated";

interface Invitation {
  id: string;
  workspaceId: string;
  workspaceName: string;
  role: "owner" | "editor" | "viewer";
  invitedByName: string | null;
  createdAt: string;
}

/**
 * The workspaces that invited the signed-in person (issue 31): they join only by accepting here. The server decides
 * whose invitation it is (their user's email); after an answer the home page is read again, so an accepted
 * workspace shows with its pages.
 */
export function Invitations({ initial }: { initial: Invitation[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const hydrated = useHydrated();
  const list = useQuery({ ...trpc.panel.invitations.list.queryOptions(), initialData: initial });
  const decide = useMutation(
    trpc.panel.invitations.decide.mutationOptions({
      onSuccess: () => {
        void list.refetch();
        router.refresh();
      },
    }),
  );
  if (list.data.length === 0) return null;
  return (
    <section className="card" aria-labelledby="invitations">
      <h2 id="invitations">Invitations</h2>
      {decide.error && (
        <p role="alert" className="error">
          {decide.error.message}
        </p>
      )}
      <ul className="page-list">
        {list.data.map((invitation) => (
          <li key={invitation.id} data-testid="my-invitation">
            <strong>{invitation.workspaceName}</strong>{" "}
            <span className="muted">
              as {invitation.role}
              {invitation.invitedByName ? `, from ${invitation.invitedByName}` : ""}
            </span>{" "}
            <button
              type="button"
              className="primary"
              disabled={!hydrated || decide.isPending}
              aria-label={`Accept the invitation to ${invitation.workspaceName}`}
              onClick={() => decide.mutate({ invitationId: invitation.id, accept: true })}
            >
              Accept
            </button>{" "}
            <button
              type="button"
              disabled={!hydrated || decide.isPending}
              aria-label={`Decline the invitation to ${invitation.workspaceName}`}
              onClick={() => decide.mutate({ invitationId: invitation.id, accept: false })}
            >
              Decline
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
