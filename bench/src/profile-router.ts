/**
 * V8's sampling profile of router calls in this process (callTool on a SQLite file kernel, no door), for the
 * functions a router-side change moves (issue 37):
 *
 *   node --import tsx src/profile-router.ts [append|edit|blocks|markdown|markdownCold|small] [calls] [rows] [cacheMb]
 *
 * append: a one-block `page.save` append (section 1's router write); edit: a one-operation `page.edit` (section 7);
 * blocks / markdown: `page.get` of a 1,000-block page's first window in either form (section 7b); markdownCold: the
 * same with the kept inline Markdown emptied before each call; small: `page.get` of a 10-block page (section 3's read). cacheMb sets the read cache (0 turns it off).
 * Prints busy µs per call, then functions by self and by inclusive time. Sampled time is wall time, so on a loaded
 * machine compare paths of one run, not runs.
 */
import { Session } from "node:inspector/promises";
import type { Block } from "@mnote/contract";
import { forgetInlineMarkdown } from "@mnote/markdown";
import { appendArgs } from "./floor";
import { formattedPage } from "./markdown";
import { assertOk, benchWorld, paragraphs } from "./world";
import { countProfile, printRanked, type Profile } from "./v8-profile";

const PATHS = ["append", "edit", "blocks", "markdown", "markdownCold", "small"] as const;
type RouterPath = (typeof PATHS)[number];
const path = (process.argv[2] ?? "append") as RouterPath;
if (!PATHS.includes(path)) throw new Error(`path: one of ${PATHS.join(", ")}`);
const calls = Number(process.argv[3] ?? 2000);
const rows = Number(process.argv[4] ?? 30);
const cacheMb = process.argv[5];

const w = await benchWorld(
  "profile-router",
  cacheMb === undefined ? {} : { readCacheBytes: Number(cacheMb) * 2 ** 20 },
);
const read = { includeBody: false, includeOptions: false };
const bookPage = (): Block[] => paragraphs(1000);
let page = await w.newPage(path === "blocks" || path.startsWith("markdown") ? formattedPage(1000) : bookPage());
const smallPage = await w.newPage(paragraphs(10));
let i = 0;
const appendPages: string[] = [];
if (path === "append")
  for (let n = 0; n < (calls + 300) / 10 + 1; n++) appendPages.push(await w.newPage(paragraphs(20)));
const one: Record<RouterPath, () => Promise<void>> = {
  async append() {
    // A fresh 20-block page every 10 appends, as section 1 writes; made before the profile, as section 1 makes them
    // before its clock (a page's 20 blocks cost more than the append itself).
    if (i % 10 === 0) page = appendPages[i / 10]!;
    assertOk(await w.call("mnote.page.save", w.envelope("mnote.page.save", page, appendArgs(i++))), "append");
  },
  async edit() {
    const operations = [{ op: "replace", blockId: "b501", text: `Edited ${i++}` }];
    assertOk(await w.call("mnote.page.edit", w.envelope("mnote.page.edit", page, { operations })), "edit");
  },
  async blocks() {
    assertOk(await w.call("mnote.page.get", w.envelope("mnote.page.get", page, { ...read, format: "blocks" })), "get");
  },
  async markdown() {
    assertOk(
      await w.call("mnote.page.get", w.envelope("mnote.page.get", page, { ...read, format: "markdown" })),
      "get",
    );
  },
  async small() {
    assertOk(await w.call("mnote.page.get", w.envelope("mnote.page.get", smallPage, {})), "get");
  },
  async markdownCold() {
    forgetInlineMarkdown();
    await one.markdown();
  },
};
for (let n = 0; n < 300; n++) await one[path]();

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
for (let n = 0; n < calls; n++) await one[path]();
const { profile } = (await session.post("Profiler.stop")) as { profile: Profile };
session.disconnect();
await w.kernel.close();

const { self, inclusive, busy, sampleUs } = countProfile(profile);
const us = (count: number) => ((count * sampleUs) / calls).toFixed(1).padStart(7);
console.log(`${path}: ${calls} calls, busy ${us(busy).trim()} µs per call`);
const show = (counts: Map<string, number>) => printRanked(counts, { us, busy, rows });
/** Self time by where the code lives: a library, a package of this repository, or V8 / native (SQLite, hashing). */
const source = (key: string) => {
  const file = key.slice(key.indexOf(" ") + 1);
  if (/^@trpc\//.test(file)) return "tRPC";
  if (/^zod\//.test(file)) return "zod";
  const local = /^(packages|apps|bench)\/([^/]+)/.exec(file);
  if (local) return `${local[1]}/${local[2]}`;
  if (file.startsWith("node:")) return "node:*";
  return key.startsWith("(garbage collector)")
    ? "GC"
    : file.startsWith(":")
      ? "V8 / native (SQLite, crypto, JSON)"
      : file;
};
const bySource = new Map<string, number>();
for (const [key, count] of self)
  if (key !== "(idle) :-1") bySource.set(source(key), (bySource.get(source(key)) ?? 0) + count);
console.log("--- self, by source");
show(bySource);
console.log("--- self");
show(self);
console.log("--- inclusive");
show(inclusive);
