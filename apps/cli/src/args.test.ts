import { describe, expect, it } from "vitest";
import { optionsOf, parseArgs, UsageError } from "./args";
import { COMMANDS } from "./main";

const PAGE_CREATE =
  "mnote admin page create --workspace ID --title TITLE --created-by USER_ID [--private] [--blocks-file FILE.json] [--id ID]";

describe("parseArgs (node:util, options from the usage line)", () => {
  it("reads each option's kind from the usage line", () => {
    expect(optionsOf(PAGE_CREATE)).toEqual({
      workspace: { type: "string" },
      title: { type: "string" },
      "created-by": { type: "string" },
      private: { type: "boolean" },
      "blocks-file": { type: "string" },
      id: { type: "string" },
    });
    expect(optionsOf("mnote admin user set-email --id USER_ID --email EMAIL | --clear")).toEqual({
      id: { type: "string" },
      email: { type: "string" },
      clear: { type: "boolean" },
    });
    expect(optionsOf("mnote admin workspace create --name NAME --owner USER_ID [--approval on|off]").approval).toEqual({
      type: "string",
    });
  });

  it("takes `--name value`, `--name=value`, flags and positionals", () => {
    const args = parseArgs(["--workspace", "ws_1", "--title=A = B", "--private", "--created-by", "u1"], PAGE_CREATE);
    expect(Object.fromEntries(args.flags)).toEqual({
      workspace: "ws_1",
      title: "A = B",
      private: true,
      "created-by": "u1",
    });
    expect(parseArgs(["cmd_1"], "mnote command show COMMAND_ID").positionals).toEqual(["cmd_1"]);
  });

  it("an option the command does not take, or a value left out, is a usage error", () => {
    expect(() => parseArgs(["--worksapce", "ws_1"], PAGE_CREATE)).toThrow(UsageError);
    expect(() => parseArgs(["--title"], PAGE_CREATE)).toThrow(UsageError);
    expect(() => parseArgs(["--private=yes"], PAGE_CREATE)).toThrow(UsageError);
  });

  it("every command's usage line declares at least the options its words promise", () => {
    for (const command of COMMANDS) {
      const named = [...command.usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]);
      expect(Object.keys(optionsOf(command.usage)).sort()).toEqual([...new Set(named)].sort());
    }
  });
});
