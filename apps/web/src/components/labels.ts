import type { ToolName, WriteToolName } from "@mnote/contract";

/** Words a person reads, for the names tools and kernels use (typed: a new tool without a label does not compile). */
export const TOOL_LABELS: Record<ToolName | "panel.page.revert", string> = {
  "mnote.page.get": "Read page",
  "mnote.page.save": "Edit page body",
  "mnote.page.edit": "Edit page blocks",
  "mnote.page.update_title": "Rename page",
  "mnote.page.update_options": "Change page options",
  "mnote.artifact.create_summary": "Write page summary",
  "mnote.artifact.create_ai_note": "Add AI note",
  "panel.page.revert": "Revert an AI edit",
};

export const toolLabel = (name: string) => TOOL_LABELS[name as ToolName] ?? name;

/**
 * Which agent writes change the page (title, options, body), so a person may revert them. Typed over every
 * write tool, so a new one does not compile until it is placed here (without bundling the zod contract).
 */
const CHANGES_THE_PAGE = {
  "mnote.page.save": true,
  "mnote.page.edit": true,
  "mnote.page.update_title": true,
  "mnote.page.update_options": true,
  "mnote.artifact.create_summary": false,
  "mnote.artifact.create_ai_note": false,
} satisfies Record<WriteToolName, boolean>;
export const PAGE_WRITE_TOOLS: ReadonlySet<string> = new Set(
  Object.entries(CHANGES_THE_PAGE).flatMap(([name, changes]) => (changes ? [name] : [])),
);

/** The proposals a person can apply in part, change by change (the server cuts them: panel.proposals.applySelection). */
export const PARTIAL_APPLY_TOOLS: ReadonlySet<string> = new Set<ToolName>(["mnote.page.save", "mnote.page.edit"]);

export function formatTime(iso: string) {
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
  ["week", 4.35],
  ["month", 12],
  ["year", Infinity],
];

/** "2 minutes ago": how people say when; the exact time is the element's title. */
export function relativeTime(iso: string, now = Date.now()) {
  let amount = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return RELATIVE.format(Math.round(amount), unit);
    amount /= size;
  }
  return formatTime(iso);
}
