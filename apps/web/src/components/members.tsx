"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/react";
import { RowAction, TableCard } from "./table-card";

type Role = "owner" | "editor" | "viewer";
const ROLES: Role[] = ["owner", "editor", "viewer"];

interface MembersAnswer {
  members: Array<{ userId: string; name: string; role: Role }>;
  /** Pending invitations (owners only): the emails invited, waiting for that person's answer. */
  invitations: Array<{ id: string; email: string; role: Role; createdAt: string }>;
  canManage: boolean;
  you: string;
}

/**
 * The members table. What an owner may do is the server's answer (`canManage`) and every rule is checked
 * there again (the kernel's: a workspace keeps an owner); the page shows the refusal in the server's words.
 */
export function Members({ workspaceId, initial }: { workspaceId: string; initial: MembersAnswer }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.panel.members.list.queryOptions({ workspaceId }), initialData: initial });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.panel.members.list.queryKey({ workspaceId }) });
  const options = { onSuccess: () => void refresh() };
  const invite = useMutation(trpc.panel.members.invite.mutationOptions(options));
  const setRole = useMutation(trpc.panel.members.setRole.mutationOptions(options));
  const remove = useMutation(trpc.panel.members.remove.mutationOptions(options));
  const [email, setEmail] = useState("");
  const [role, setNewRole] = useState<Role>("editor");
  const error = invite.error ?? setRole.error ?? remove.error;
  const { members, invitations, canManage, you } = list.data;
  const [sent, setSent] = useState<string | null>(null);

  return (
    <>
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <TableCard id="members" title="Members" columns={canManage ? ["Name", "Role", ""] : ["Name", "Role"]}>
        {members.map((member) => (
          <tr key={member.userId} data-testid="member">
            <td>
              {member.name} {member.userId === you && <span className="muted">(you)</span>}{" "}
              <code className="muted">{member.userId}</code>
            </td>
            <td>
              {canManage ? (
                <select
                  aria-label={`Role of ${member.name}`}
                  value={member.role}
                  disabled={setRole.isPending}
                  onChange={(e) => setRole.mutate({ workspaceId, userId: member.userId, role: e.target.value as Role })}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              ) : (
                member.role
              )}
            </td>
            {canManage && (
              <td>
                <RowAction
                  name={`Remove ${member.name}`}
                  busy={remove.isPending}
                  onClick={() => remove.mutate({ workspaceId, userId: member.userId })}
                >
                  Remove
                </RowAction>
              </td>
            )}
          </tr>
        ))}
      </TableCard>
      {canManage && (
        <section className="card" aria-labelledby="invite">
          <h2 id="invite">Invite a member</h2>
          <p className="muted">
            The person with this email sees the invitation after signing in to mnote and becomes a member when they
            accept it. Nothing here says whether anyone has the email.
          </p>
          <form
            className="row"
            onSubmit={(event) => {
              event.preventDefault();
              setSent(null);
              invite.mutate(
                { workspaceId, email, role },
                {
                  onSuccess: (answer) => {
                    setEmail("");
                    setSent(answer.email);
                  },
                },
              );
            }}
          >
            <label htmlFor="invite-email">Email</label>
            <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <label htmlFor="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(e) => setNewRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button type="submit" className="primary" disabled={invite.isPending}>
              Invite
            </button>
          </form>
          {sent && (
            <p role="status" className="muted">
              Invited {sent}. They become a member when they accept.
            </p>
          )}
          {invitations.length > 0 && (
            <>
              <h3>Waiting for an answer</h3>
              <ul aria-label="Pending invitations">
                {invitations.map((invitation) => (
                  <li key={invitation.id} data-testid="invitation">
                    {invitation.email} <span className="muted">as {invitation.role}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
    </>
  );
}
