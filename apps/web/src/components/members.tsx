"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { useTRPC } from "~/trpc/react";
import { useConfirmation } from "./confirm-dialog";
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

/** Where a refusal shows: beside the member it was about, or under the invitation form. */
type Problem = { at: "member"; userId: string; message: string } | { at: "invite"; message: string };

/**
 * The members table. What an owner may do is the server's answer (`canManage`) and every rule is checked
 * there again (the kernel's: a workspace keeps an owner); a refusal shows in the server's words where the action
 * was taken — under that member's row, or under the invitation form — and the latest replaces any earlier one.
 * Removing someone asks first.
 */
export function Members({
  workspaceId,
  workspaceName,
  initial,
}: {
  workspaceId: string;
  workspaceName: string;
  initial: MembersAnswer;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.panel.members.list.queryOptions({ workspaceId }), initialData: initial });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.panel.members.list.queryKey({ workspaceId }) });
  const [problem, setProblem] = useState<Problem | null>(null);
  // Every refusal is shown once, where it belongs, and reads the list again (a "no longer a member" means it was old).
  const onMemberError = (userId: string) => (error: { message: string }) => {
    setProblem({ at: "member", userId, message: error.message });
    void refresh();
  };
  const options = { onSuccess: () => void refresh() };
  const invite = useMutation(trpc.panel.members.invite.mutationOptions(options));
  const setRole = useMutation(trpc.panel.members.setRole.mutationOptions(options));
  const remove = useMutation(trpc.panel.members.remove.mutationOptions(options));
  const confirmation = useConfirmation();
  const [email, setEmail] = useState("");
  const [role, setNewRole] = useState<Role>("editor");
  const { members, invitations, canManage, you } = list.data;
  const [sent, setSent] = useState<string | null>(null);

  const askToRemove = (member: MembersAnswer["members"][number]) => {
    const self = member.userId === you;
    confirmation.ask({
      title: self ? `Leave ${workspaceName}?` : `Remove ${member.name} from ${workspaceName}?`,
      body: (
        <p>
          {self ? "You lose" : `${member.name} loses`} access to the pages of {workspaceName} from{" "}
          {self ? "your" : "their"} next action on, and so do {self ? "your" : "their"} agents. An owner can invite{" "}
          {self ? "you" : "them"} again later.
        </p>
      ),
      confirm: self ? "Leave the workspace" : `Remove ${member.name}`,
      onConfirm: () => {
        setProblem(null);
        remove.mutate(
          { workspaceId, userId: member.userId },
          {
            onError: onMemberError(member.userId),
            // The row and its button are gone: focus goes to the table's heading, not to the page's top.
            onSuccess: () => focusHeading("members"),
          },
        );
      },
    });
  };

  return (
    <>
      <TableCard id="members" title="Members" columns={canManage ? ["Name", "Role", ""] : ["Name", "Role"]}>
        {members.map((member) => (
          <Fragment key={member.userId}>
            <tr data-testid="member">
              <td data-label="Name">
                {member.name} {member.userId === you && <span className="muted">(you)</span>}
              </td>
              <td data-label="Role">
                {canManage ? (
                  <select
                    aria-label={`Role of ${member.name}`}
                    value={member.role}
                    disabled={setRole.isPending}
                    onChange={(e) => {
                      setProblem(null);
                      setRole.mutate(
                        { workspaceId, userId: member.userId, role: e.target.value as Role },
                        { onError: onMemberError(member.userId) },
                      );
                    }}
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
                    name={member.userId === you ? "Leave the workspace" : `Remove ${member.name}`}
                    busy={remove.isPending}
                    onClick={() => askToRemove(member)}
                  >
                    {member.userId === you ? "Leave" : "Remove"}
                  </RowAction>
                </td>
              )}
            </tr>
            {problem?.at === "member" && problem.userId === member.userId && (
              <tr data-testid="member-problem">
                <td colSpan={canManage ? 3 : 2}>
                  <p role="alert" className="error">
                    {problem.message}
                  </p>
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </TableCard>
      {problem?.at === "member" && !members.some((m) => m.userId === problem.userId) && (
        // The member the refusal was about is no longer listed (the list was out of date): say it under the table.
        <p role="alert" className="error" data-testid="member-problem">
          {problem.message}
        </p>
      )}
      {confirmation.dialog}
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
              setProblem(null);
              invite.mutate(
                { workspaceId, email, role },
                {
                  onSuccess: (answer) => {
                    setEmail("");
                    setSent(answer.email);
                  },
                  onError: (error) => setProblem({ at: "invite", message: error.message }),
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
          {problem?.at === "invite" && (
            <p role="alert" className="error" data-testid="invite-problem">
              {problem.message}
            </p>
          )}
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

/** Focus a section's heading (after the control that had focus went away). */
function focusHeading(id: string) {
  const heading = document.getElementById(id);
  if (!heading) return;
  heading.setAttribute("tabindex", "-1");
  heading.focus();
}
