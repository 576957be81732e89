#!/usr/bin/env node
// Test only: a person rejects the newest pending proposal on a page with a reason, through the panel's own
// procedures (src/test-support.ts rejectInPanel), for the Hermes plugin's unittest of issue 22's decisions.
import { parseArgs } from "node:util";
import { register } from "tsx/esm/api";

register();
const { values } = parseArgs({
  options: {
    "database-url": { type: "string" },
    token: { type: "string" },
    workspace: { type: "string" },
    document: { type: "string" },
    reason: { type: "string" },
  },
});
if (!values["database-url"] || !values.token || !values.workspace || !values.document) {
  process.stderr.write("reject-test-proposal: needs --database-url --token --workspace --document [--reason]\n");
  process.exit(2);
}
const { openKernel } = await import("@mnote/kernel");
const { rejectInPanel } = await import("../src/test-support.ts");
const kernel = await openKernel(values["database-url"]);
const rejected = await rejectInPanel(
  kernel,
  values.token,
  { workspaceId: values.workspace, documentId: values.document },
  values.reason ?? "",
);
await kernel.close();
process.stdout.write(`${JSON.stringify(rejected)}\n`);
