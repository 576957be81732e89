import { EmailSchema, IdSchema } from "@mnote/contract";
import { type AdminRule, isAdminRefusal, type Role } from "@mnote/kernel";
import { AppError } from "../app-error";
import { z } from "zod";
import type { PersonContext } from "./panel-procedure";

/**
 * Owners manage their workspace's members in the panel (issue 23 item 2) with the CLI's rules, which live in the
 * kernel and nowhere else: a workspace keeps an owner, a role changes only for a member, a removal only of one.
 * Each change is audited as the CLI's are (`admin.member.*`), under the owner who made it.
 */
export const RoleSchema = z.enum(["owner", "editor", "viewer"]) satisfies z.ZodType<Role>;

export const WorkspaceRefInput = z.object({ workspaceId: IdSchema });
export const MemberInviteInput = WorkspaceRefInput.extend({ email: EmailSchema, role: RoleSchema });
export const MemberRoleInput = WorkspaceRefInput.extend({ userId: IdSchema, role: RoleSchema });
export const MemberRefInput = WorkspaceRefInput.extend({ userId: IdSchema });

/** The signed-in person's role in the workspace; a workspace they are not in is not found. */
export async function requireMember(ctx: PersonContext, workspaceId: string): Promise<Role> {
  const role = (await ctx.kernel.admin.listWorkspaces(ctx.token.userId)).find((w) => w.id === workspaceId)?.role;
  if (!role) throw new AppError("mnote_tool_not_found", "workspace not found");
  return role;
}

export async function requireOwner(ctx: PersonContext, workspaceId: string): Promise<void> {
  if ((await requireMember(ctx, workspaceId)) !== "owner")
    throw new AppError("mnote_tool_permission_denied", "only a workspace owner manages its members");
}

/**
 * A kernel refusal (the last owner, not a member) is the person's mistake: said in words, with the person's and the
 * workspace's names where the kernel's message (for operators, printed by the CLI) has their ids.
 */
export async function asPanelRefusal<T>(ctx: PersonContext, change: Promise<T>): Promise<T> {
  try {
    return await change;
  } catch (error) {
    if (!isAdminRefusal(error)) throw error;
    const facts = error.facts ?? null;
    throw new AppError("mnote_tool_conflict", facts ? await refusalInWords(ctx, facts) : error.message);
  }
}

async function refusalInWords(ctx: PersonContext, facts: AdminRule): Promise<string> {
  const you = facts.userId === ctx.token.userId;
  const person = you ? "You" : ((await ctx.kernel.admin.getUser(facts.userId))?.name ?? "That person");
  const workspace =
    (await ctx.kernel.admin.listWorkspaces(ctx.token.userId)).find((w) => w.id === facts.workspaceId)?.name ??
    "this workspace";
  if (facts.rule === "last_owner")
    return `${person} ${you ? "are" : "is"} the only owner of ${workspace}, and a workspace needs an owner: make another member an owner first.`;
  return `${person} ${you ? "are" : "is"} no longer a member of ${workspace}: the list is shown again as it is now.`;
}
