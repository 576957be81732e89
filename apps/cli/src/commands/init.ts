import { LATEST_SCHEMA_VERSION } from "@mnote/kernel";
import type { Command } from "../command";

export const initCommand: Command = {
  words: ["init"],
  usage: "mnote init   (create or migrate the database named by MNOTE_DATABASE_URL)",
  help: "Creates the database named by MNOTE_DATABASE_URL, or brings its schema up to date; safe to run again.",
  async run({ kernel }) {
    const k = await kernel();
    return { output: { ok: true, dialect: k.dialect, schemaVersion: LATEST_SCHEMA_VERSION } };
  },
};
