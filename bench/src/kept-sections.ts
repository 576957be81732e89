import { existsSync, readFileSync } from "node:fs";

/**
 * Sections of docs/benchmarks.md that `pnpm bench` does not measure itself: they need a browser, so an e2e
 * flow measures them and writes them into the file (e2e/flows/at-size.spec.ts with MNOTE_UPDATE_BENCHMARKS=1).
 * A bench run carries them over unchanged instead of dropping them.
 */
export const BROWSER_SECTIONS = ["## Panel at size"] as const;

/** The browser-measured sections of the report at `file`, each from its heading to the next `## ` heading. */
export function keptSections(file: string | null): string[] {
  if (!file || !existsSync(file)) return [];
  const text = readFileSync(file, "utf8");
  return BROWSER_SECTIONS.flatMap((heading) => {
    const section = sectionOf(text, heading);
    return section === null ? [] : [section];
  });
}

/** One `## ` section of a markdown text (heading line included, trailing blank lines trimmed), or null. */
export function sectionOf(text: string, heading: string): string | null {
  const start = text.split("\n").findIndex((line) => line.trim() === heading);
  if (start < 0) return null;
  const lines = text.split("\n").slice(start);
  const end = lines.findIndex((line, i) => i > 0 && line.startsWith("## "));
  return (end < 0 ? lines : lines.slice(0, end)).join("\n").trimEnd() + "\n";
}

/** `text` with `section` (starting with its own `## ` heading) in place of the old one, or appended. */
export function replaceSection(text: string, section: string): string {
  const heading = section.split("\n")[0]!.trim();
  const old = sectionOf(text, heading);
  if (old === null) return `${text.trimEnd()}\n\n${section.trimEnd()}\n`;
  const at = text.indexOf(old.trimEnd());
  return `${text.slice(0, at)}${section.trimEnd()}${text.slice(at + old.trimEnd().length)}`;
}
