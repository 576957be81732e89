import { join } from "node:path";
import { DEMO, DemoRefused, ensureDemo } from "../demo";
import { optional } from "../args";
import type { Command } from "../command";

export const demoCommand: Command = {
  words: ["demo"],
  usage:
    "mnote demo [--credentials FILE] [--force]   (create the demo workspace once, on a database with no other users; print demo ids and tokens)",
  help: "Creates the demo workspace (Ada, Ben, Cy, Dee) once and prints its ids and tokens; later runs reuse them. Refuses a database with users of its own unless --force.",
  async run({ args, kernel, config }) {
    const file = optional(args, "credentials") ?? config.demoCredentials ?? join(".mnote", "demo-tokens.json");
    try {
      const credentials = await ensureDemo(await kernel(), file, { force: args.flags.get("force") === true });
      return { output: { ...DEMO, credentials, credentialsFile: file } };
    } catch (error) {
      if (error instanceof DemoRefused) return { output: { ok: false, error: error.message }, exitCode: 1 };
      throw error;
    }
  },
};
