import { DryRunResultSchema, PAGE_OPTION_REGISTRY } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { expectFailure, expectOk, expectOnlyAuditGrew, snapshot, useWorlds } from "./test-contract";
import { testKernels } from "./test-kernels";
import type { World } from "./test-support";

/**
 * Rule 10: update_title (trimmed, 1–200 characters) → page.head.updateTitle;
 * update_options → page.layout.updateOptions; a planned option (protectEditing) is
 * previewed with a warning and refused for real, writing nothing.
 */

const title = (w: World, value: unknown, overrides: Record<string, unknown> = {}) =>
  w.call("mnote.page.update_title", w.envelope("mnote.page.update_title", { title: value }, overrides));
const options = (w: World, value: Record<string, unknown>, overrides: Record<string, unknown> = {}) =>
  w.call("mnote.page.update_options", w.envelope("mnote.page.update_options", { options: value }, overrides));
const pageOf = async (w: World) => (await w.kernel.getPage(w.ids.page))!;

describe.each(testKernels())("update_title and update_options ($name)", ({ open }) => {
  const world = useWorlds(open);

  it("update_title trims the title and answers page.head.updateTitle with the new revision", async () => {
    const w = await world();
    expect(expectOk(await title(w, "  \tQuarterly plan \n"), "write")).toEqual({
      commandName: "page.head.updateTitle",
      revision: 2,
    });
    expect(await pageOf(w)).toMatchObject({ title: "Quarterly plan", revision: 2 });
    const read = expectOk<{ title: string }>(await w.call("mnote.page.get", w.envelope("mnote.page.get")));
    expect(read.title).toBe("Quarterly plan");
  });

  it("a 200-character title is accepted (after trimming), 201 is not", async () => {
    const w = await world();
    const long = "题".repeat(200);
    expectOk(await title(w, `  ${long}  `), "write");
    expect((await pageOf(w)).title).toBe(long);
    expectFailure(await title(w, `${long}x`), "mnote_tool_invalid_input", /args\.title/);
  });

  it("the title dry run shows before and after (after trimmed)", async () => {
    const w = await world();
    const preview = DryRunResultSchema.parse(expectOk(await title(w, " New ", { dryRun: true }), "dry_run"));
    expect(preview.changes).toEqual([{ kind: "set_title", before: "Project plan", after: "New" }]);
    expect(preview.commandName).toBe("page.head.updateTitle");
  });

  it("update_options answers page.layout.updateOptions and changes only the keys it names", async () => {
    const w = await world();
    expect(expectOk(await options(w, { wideLayout: true, showToc: true }), "write")).toEqual({
      commandName: "page.layout.updateOptions",
      revision: 2,
    });
    expect((await pageOf(w)).options).toEqual({
      wideLayout: true,
      smallText: false,
      showToc: true,
      protectEditing: false,
    });
    expectOk(await options(w, { smallText: true, showToc: false }), "write");
    const read = expectOk<{ pageOptions: unknown }>(await w.call("mnote.page.get", w.envelope("mnote.page.get")));
    expect(read.pageOptions).toEqual({ wideLayout: true, smallText: true, showToc: false, protectEditing: false });
  });

  it("the registry marks wideLayout, smallText, showToc wired and protectEditing planned", () => {
    expect(Object.fromEntries(Object.entries(PAGE_OPTION_REGISTRY).map(([k, v]) => [k, v.runtimeSupport]))).toEqual({
      wideLayout: "wired",
      smallText: "wired",
      showToc: "wired",
      protectEditing: "planned",
    });
  });

  it("protectEditing: the dry run answers the plan with an option_not_wired warning", async () => {
    const w = await world();
    const before = await snapshot(w);
    const preview = DryRunResultSchema.parse(
      expectOk(await options(w, { protectEditing: true }, { dryRun: true }), "dry_run"),
    );
    expect(preview.warnings).toEqual([
      {
        code: "option_not_wired",
        field: "options.protectEditing",
        message: expect.stringContaining("mnote_tool_option_unsupported"),
      },
    ]);
    expect(preview.changes).toEqual([{ kind: "set_option", key: "protectEditing", before: false, after: true }]);
    expect(preview.diff).toEqual([{ op: "set_options", fields: ["protectEditing"] }]);
    const [record] = await expectOnlyAuditGrew(w, before);
    expect(record!.outcome).toBe("proposal");
  });

  it.each([
    ["alone", { protectEditing: true }],
    ["with wired options beside it", { wideLayout: true, smallText: true, protectEditing: false }],
  ])(
    "protectEditing %s: the real call fails mnote_tool_option_unsupported and writes nothing",
    async (_name, value) => {
      const w = await world();
      const before = await snapshot(w);
      const out = await options(w, value, { idempotencyKey: "protect" });
      expectFailure(out, "mnote_tool_option_unsupported", /options\.protectEditing/);
      const [record] = await expectOnlyAuditGrew(w, before);
      expect(record).toMatchObject({ errorCode: "mnote_tool_option_unsupported", commandId: null });
      expect(await pageOf(w)).toMatchObject({ revision: 1, options: { wideLayout: false, smallText: false } });
      // The refused key was not recorded: it can be used for a wired change afterwards.
      expectOk(await options(w, { wideLayout: true }, { idempotencyKey: "protect" }), "write");
    },
  );
});
