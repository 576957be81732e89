import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { type Block, BlockInputSchema, canonicalBlock, CapabilitySchema, describeIssues } from "@mnote/contract";
import type { Role } from "@mnote/kernel";
import { z } from "zod";
import { optional, required, UsageError } from "../args";
import type { Command } from "../command";

const ROLES: Role[] = ["owner", "editor", "viewer"];

/** Who the audit names for an operator change: the OS account running the CLI. */
const operator = () => ({ by: `operator:${userInfo().username}` });

function role(args: Parameters<Command["run"]>[0]["args"]): Role {
  const value = required(args, "role") as Role;
  if (!ROLES.includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  return value;
}

export const adminCommands: Command[] = [
  {
    words: ["admin", "user", "create"],
    usage: "mnote admin user create --name NAME [--email EMAIL] [--id ID]",
    help: "Creates a user; prints their id for tokens and memberships. With --email they can sign in to the panel through the identity provider (MNOTE_OIDC_*).",
    async run({ args, kernel }) {
      const user = await (
        await kernel()
      ).admin.createUser({
        name: required(args, "name"),
        email: optional(args, "email") ?? null,
        id: optional(args, "id"),
        ...operator(),
      });
      return { output: user };
    },
  },
  {
    words: ["admin", "user", "set-email"],
    usage: "mnote admin user set-email --id USER_ID --email EMAIL | --clear",
    help: "Sets the email the identity provider's sign-in finds the user by (one user's each), or clears it (--clear: token sign-in only).",
    async run({ args, kernel }) {
      const clear = args.flags.get("clear") === true;
      const email = optional(args, "email");
      if (clear === (email !== undefined)) throw new UsageError("give exactly one of --email or --clear");
      return { output: await (await kernel()).admin.setUserEmail(required(args, "id"), email ?? null, operator()) };
    },
  },
  {
    words: ["admin", "user", "list"],
    usage: "mnote admin user list",
    help: "Every user, by name.",
    async run({ kernel }) {
      return { output: await (await kernel()).admin.listUsers() };
    },
  },
  {
    words: ["admin", "user", "remove"],
    usage: "mnote admin user remove --id USER_ID",
    help: "Removes the user with their memberships, page grants and tokens; their calls stop at once. Refused while they are a workspace's last owner.",
    async run({ args, kernel }) {
      const id = required(args, "id");
      await (await kernel()).admin.removeUser(id, operator());
      return { output: { id, removed: true } };
    },
  },
  {
    words: ["admin", "workspace", "create"],
    usage: "mnote admin workspace create --name NAME --owner USER_ID [--id ID] [--approval on|off]",
    help: "Creates a workspace owned by USER_ID; with --approval on (the default) agent page writes wait for a person.",
    async run({ args, kernel }) {
      const approval = optional(args, "approval") ?? "on";
      if (approval !== "on" && approval !== "off") throw new UsageError("--approval must be on or off");
      const workspace = await (
        await kernel()
      ).admin.createWorkspace({
        name: required(args, "name"),
        ownerId: required(args, "owner"),
        id: optional(args, "id"),
        approvalRequired: approval === "on",
        ...operator(),
      });
      return { output: workspace };
    },
  },
  {
    words: ["admin", "workspace", "list"],
    usage: "mnote admin workspace list [--user USER_ID]",
    help: "Every workspace, or the ones a user belongs to (with the user's role).",
    async run({ args, kernel }) {
      return { output: await (await kernel()).admin.listWorkspaces(optional(args, "user")) };
    },
  },
  {
    words: ["admin", "workspace", "approval"],
    usage: "mnote admin workspace approval --workspace ID --policy on|off [--artifacts on|off]",
    help: "Turns the approval policy on or off: with it on, agent page writes wait for a person's approval in the panel; with --artifacts on, agents' summaries and AI notes wait too.",
    async run({ args, kernel }) {
      const policy = required(args, "policy");
      if (policy !== "on" && policy !== "off") throw new UsageError("--policy must be on or off");
      const artifacts = optional(args, "artifacts");
      if (artifacts !== undefined && artifacts !== "on" && artifacts !== "off")
        throw new UsageError("--artifacts must be on or off");
      const workspaceId = required(args, "workspace");
      const change = { approvalRequired: policy === "on", ...(artifacts ? { holdArtifacts: artifacts === "on" } : {}) };
      const admin = (await kernel()).admin;
      const { from, to } = await admin.setWorkspacePolicy(workspaceId, change, { ...operator(), via: "cli" });
      return { output: { workspaceId, approvalRequired: to.approvalRequired, from, to } };
    },
  },
  {
    words: ["admin", "member", "add"],
    usage: "mnote admin member add --workspace ID --user ID --role owner|editor|viewer",
    help: "Adds a member (or sets the role of one already there).",
    async run({ args, kernel }) {
      const input = { workspaceId: required(args, "workspace"), userId: required(args, "user"), role: role(args) };
      await (await kernel()).admin.addMember({ ...input, ...operator() });
      return { output: input };
    },
  },
  {
    words: ["admin", "member", "role"],
    usage: "mnote admin member role --workspace ID --user ID --role owner|editor|viewer",
    help: "Changes a member's role; takes effect on the member's next call. A workspace keeps at least one owner.",
    async run({ args, kernel }) {
      const input = { workspaceId: required(args, "workspace"), userId: required(args, "user"), role: role(args) };
      await (await kernel()).admin.setMemberRole({ ...input, ...operator() });
      return { output: input };
    },
  },
  {
    words: ["admin", "member", "remove"],
    usage: "mnote admin member remove --workspace ID --user ID",
    help: "Removes a member; takes effect on their next call, replays of earlier results included. A workspace keeps at least one owner.",
    async run({ args, kernel }) {
      const input = { workspaceId: required(args, "workspace"), userId: required(args, "user") };
      await (await kernel()).admin.removeMember({ ...input, ...operator() });
      return { output: { ...input, removed: true } };
    },
  },
  {
    words: ["admin", "member", "list"],
    usage: "mnote admin member list --workspace ID",
    help: "The workspace's members with their roles.",
    async run({ args, kernel }) {
      return { output: await (await kernel()).admin.listMembers(required(args, "workspace")) };
    },
  },
  {
    words: ["admin", "page", "create"],
    usage:
      "mnote admin page create --workspace ID --title TITLE --created-by USER_ID [--private] [--blocks-file FILE.json] [--id ID]",
    help: 'Creates a page; a private one is reachable only by grant (its creator gets a write grant). --blocks-file is a JSON array of blocks as the tools take them ([{"type": "paragraph", "text": "…"}]); a block without an id gets a new one.',
    async run({ args, kernel }) {
      const blocksFile = optional(args, "blocks-file");
      const blocks = blocksFile ? await readBlocksFile(blocksFile) : [];
      const isPrivate = args.flags.get("private") === true;
      const createdBy = required(args, "created-by");
      const k = await kernel();
      const page = await k.admin.createPage({
        id: optional(args, "id"),
        workspaceId: required(args, "workspace"),
        title: required(args, "title"),
        isPrivate,
        blocks,
        createdBy,
        ...operator(),
      });
      // Whoever creates a private page can open it: private pages are reachable only by grant.
      if (isPrivate)
        await k.admin.grantPage({ documentId: page.id, userId: createdBy, access: "write", ...operator() });
      return { output: page };
    },
  },
  {
    words: ["admin", "page", "list"],
    usage: "mnote admin page list --workspace ID",
    help: "The workspace's pages (private ones included: this is the operator's view).",
    async run({ args, kernel }) {
      return { output: await (await kernel()).admin.listPages(required(args, "workspace")) };
    },
  },
  {
    words: ["admin", "page", "grant"],
    usage: "mnote admin page grant --document ID --user ID --access read|write",
    help: "Grants a user read or write on one page (the way into a private page).",
    async run({ args, kernel }) {
      const access = required(args, "access");
      if (access !== "read" && access !== "write") throw new UsageError("--access must be read or write");
      const input = { documentId: required(args, "document"), userId: required(args, "user"), access } as const;
      await (await kernel()).admin.grantPage({ ...input, ...operator() });
      return { output: input };
    },
  },
  {
    words: ["admin", "page", "revoke"],
    usage: "mnote admin page revoke --document ID --user ID",
    help: "Takes back a page grant; takes effect on the user's next call.",
    async run({ args, kernel }) {
      const input = { documentId: required(args, "document"), userId: required(args, "user") };
      await (await kernel()).admin.revokePageGrant({ ...input, ...operator() });
      return { output: { ...input, revoked: true } };
    },
  },
  {
    words: ["admin", "token", "create"],
    usage:
      "mnote admin token create --user ID --scopes page.read,page.write,artifact.write [--holder person|agent] [--ttl SECONDS] [--label TEXT]",
    help: "Creates a token and prints its secret once (only a hash is kept). Agents get agent tokens; person tokens are for the panel.",
    async run({ args, kernel }) {
      const scopes = z
        .array(CapabilitySchema)
        .min(1)
        .safeParse(
          required(args, "scopes")
            .split(",")
            .map((s) => s.trim()),
        );
      if (!scopes.success)
        throw new UsageError("--scopes: a comma-separated list of page.read, page.write, artifact.write");
      const holder = optional(args, "holder") ?? "agent";
      if (holder !== "person" && holder !== "agent") throw new UsageError("--holder must be person or agent");
      const ttl = optional(args, "ttl");
      if (ttl !== undefined && !/^[1-9]\d*$/.test(ttl))
        throw new UsageError("--ttl must be a positive number of seconds");
      const { token, record } = await (
        await kernel()
      ).admin.createToken({
        userId: required(args, "user"),
        holder,
        scopes: scopes.data,
        label: optional(args, "label") ?? "",
        ttlSeconds: ttl ? Number(ttl) : null,
        ...operator(),
      });
      // The secret is shown this once; the database keeps only its hash.
      return { output: { token, ...record } };
    },
  },
  {
    words: ["admin", "token", "revoke"],
    usage: "mnote admin token revoke --id TOKEN_ID | --user USER_ID",
    help: "Revokes one token, or every live token of a user; a revoked token fails its next call.",
    async run({ args, kernel }) {
      const id = optional(args, "id");
      const user = optional(args, "user");
      if ((id === undefined) === (user === undefined)) throw new UsageError("give exactly one of --id or --user");
      const k = await kernel();
      if (id !== undefined) {
        await k.admin.revokeToken(id, operator());
        return { output: { id, revoked: true } };
      }
      return { output: { userId: user, revoked: await k.admin.revokeTokensOf(user!, operator()) } };
    },
  },
  {
    words: ["admin", "token", "list"],
    usage: "mnote admin token list --user USER_ID",
    help: "The user's tokens (ids, holders, scopes, expiry, revocation), newest first; never their secrets.",
    async run({ args, kernel }) {
      return { output: await (await kernel()).admin.listTokens(required(args, "user")) };
    },
  },
];

/**
 * A page's first blocks from a JSON file, in the form the tools take (`BlockInputSchema`: per-type fields have
 * defaults, `id` is optional). A block without an id gets a fresh one here, as a tool's write derives one: an
 * operator writing a file by hand should not have to invent ids (before, a missing id failed with "expected
 * string, received undefined"). A bad file is a usage error naming the field at fault.
 */
export async function readBlocksFile(path: string): Promise<Block[]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    const reason = error instanceof SyntaxError ? "is not JSON" : "cannot be read";
    throw new UsageError(
      `--blocks-file: ${path} ${reason} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const parsed = z.array(BlockInputSchema).safeParse(json);
  if (!parsed.success)
    throw new UsageError(
      `--blocks-file: ${describeIssues(parsed.error, { root: "blocks", prefix: ["blocks"], max: 1 })}`,
    );
  return parsed.data.map((block) =>
    canonicalBlock({ ...block, id: block.id ?? `blk_${randomUUID().replaceAll("-", "")}` }),
  );
}
