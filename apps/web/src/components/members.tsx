"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/react";
import { RowAction, TableCard } from "./table-card";

type Role = "owner" | "editor" | "viewer";
const ROLES: Role[] = ["owner", "editor", "viewer"];

interface MembersAnswer {
  members: Array<{ userId: string; name: string; role: Role }>;
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
  const { members, canManage, you } = list.data;

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
          <h2 id="invite">Add a member</h2>
          <p className="muted">
            Someone with an mnote user (made by an operator, or by their first sign-in where the identity provider may
            add people), found by their email.
          </p>
          <form
            className="row"
            onSubmit={(event) => {
              event.preventDefault();
              invite.mutate({ workspaceId, email, role }, { onSuccess: () => setEmail("") });
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
              Add
            </button>
          </form>
        </section>
      )}
    </>
  );
}
