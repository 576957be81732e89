import { join } from "node:path";
import { DEMO, ensureDemo } from "../demo";
import { optional } from "../args";
import type { Command } from "../command";

export const demoCommand: Command = {
  words: ["demo"],
  usage: "mnote demo [--credentials FILE]   (create the demo workspace once; print demo ids and tokens)",
  help: "Creates the demo workspace (Ada, Ben, Cy, Dee) once and prints its ids and tokens; later runs reuse them.",
  async run({ args, kernel, io }) {
    const file = optional(args, "credentials") ?? io.env.MNOTE_DEMO_CREDENTIALS ?? join(".mnote", "demo-tokens.json");
    const credentials = await ensureDemo(await kernel(), file);
    return { output: { ...DEMO, credentials, credentialsFile: file } };
  },
};
