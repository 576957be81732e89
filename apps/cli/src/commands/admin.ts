import { readFile } from "node:fs/promises";
import { BlockSchema, CapabilitySchema } from "@mnote/contract";
import type { Role } from "@mnote/kernel";
import { z } from "zod";
import { optional, required, UsageError } from "../args";
import type { Command } from "../command";

const ROLES: Role[] = ["owner", "editor", "viewer"];

export const adminCommands: Command[] = [
  {
    words: ["admin", "user", "create"],
    usage: "mnote admin user create --name NAME [--id ID]",
    async run({ args, kernel }) {
      const user = await (await kernel()).admin.createUser({ name: required(args, "name"), id: optional(args, "id") });
      return { output: user };
    },
  },
  {
    words: ["admin", "workspace", "create"],
    usage: "mnote admin workspace create --name NAME --owner USER_ID [--id ID] [--approval on|off]",
    async run({ args, kernel }) {
      const approval = optional(args, "approval") ?? "on";
      if (approval !== "on" && approval !== "off") throw new UsageError("--approval must be on or off");
      const workspace = await (await kernel()).admin.createWorkspace({
        name: required(args, "name"),
        ownerId: required(args, "owner"),
        id: optional(args, "id"),
        approvalRequired: approval === "on",
      });
      return { output: workspace };
    },
  },
  {
    words: ["admin", "workspace", "approval"],
    usage: "mnote admin workspace approval --workspace ID --policy on|off",
    async run({ args, kernel }) {
      const policy = required(args, "policy");
      if (policy !== "on" && policy !== "off") throw new UsageError("--policy must be on or off");
      const workspaceId = required(args, "workspace");
      await (await kernel()).admin.setApprovalRequired(workspaceId, policy === "on");
      return { output: { workspaceId, approvalRequired: policy === "on" } };
    },
  },
  {
    words: ["admin", "member", "add"],
    usage: "mnote admin member add --workspace ID --user ID --role owner|editor|viewer",
    async run({ args, kernel }) {
      const role = required(args, "role") as Role;
      if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      const input = { workspaceId: required(args, "workspace"), userId: required(args, "user"), role };
      await (await kernel()).admin.addMember(input);
      return { output: input };
    },
  },
  {
    words: ["admin", "page", "create"],
    usage: "mnote admin page create --workspace ID --title TITLE --created-by USER_ID [--private] [--blocks-file FILE.json] [--id ID]",
    async run({ args, kernel }) {
      const blocksFile = optional(args, "blocks-file");
      let blocks: z.infer<typeof BlockSchema>[] = [];
      if (blocksFile) {
        const parsed = z.array(BlockSchema).safeParse(JSON.parse(await readFile(blocksFile, "utf8")));
        if (!parsed.success) throw new UsageError(`--blocks-file: ${parsed.error.issues[0]?.message ?? "invalid blocks"}`);
        blocks = parsed.data;
      }
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
      });
      // Whoever creates a private page can open it: private pages are reachable only by grant.
      if (isPrivate) await k.admin.grantPage({ documentId: page.id, userId: createdBy, access: "write" });
      return { output: page };
    },
  },
  {
    words: ["admin", "page", "grant"],
    usage: "mnote admin page grant --document ID --user ID --access read|write",
    async run({ args, kernel }) {
      const access = required(args, "access");
      if (access !== "read" && access !== "write") throw new UsageError("--access must be read or write");
      const input = { documentId: required(args, "document"), userId: required(args, "user"), access } as const;
      await (await kernel()).admin.grantPage(input);
      return { output: input };
    },
  },
  {
    words: ["admin", "token", "create"],
    usage:
      "mnote admin token create --user ID --scopes page.read,page.write,artifact.write [--holder person|agent] [--ttl SECONDS] [--label TEXT]",
    async run({ args, kernel }) {
      const scopes = z.array(CapabilitySchema).min(1).safeParse(required(args, "scopes").split(",").map((s) => s.trim()));
      if (!scopes.success) throw new UsageError("--scopes: a comma-separated list of page.read, page.write, artifact.write");
      const holder = optional(args, "holder") ?? "agent";
      if (holder !== "person" && holder !== "agent") throw new UsageError("--holder must be person or agent");
      const ttl = optional(args, "ttl");
      if (ttl !== undefined && !/^[1-9]\d*$/.test(ttl)) throw new UsageError("--ttl must be a positive number of seconds");
      const { token, record } = await (await kernel()).admin.createToken({
        userId: required(args, "user"),
        holder,
        scopes: scopes.data,
        label: optional(args, "label") ?? "",
        ttlSeconds: ttl ? Number(ttl) : null,
      });
      // The secret is shown this once; the database keeps only its hash.
      return { output: { token, ...record } };
    },
  },
  {
    words: ["admin", "token", "revoke"],
    usage: "mnote admin token revoke --id TOKEN_ID",
    async run({ args, kernel }) {
      const id = required(args, "id");
      await (await kernel()).admin.revokeToken(id);
      return { output: { id, revoked: true } };
    },
  },
];
