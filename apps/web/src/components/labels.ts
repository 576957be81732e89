/** Words a person reads, for the names tools and kernels use. */
export const TOOL_LABELS: Record<string, string> = {
  "mnote.page.get": "Read page",
  "mnote.page.save": "Edit page body",
  "mnote.page.update_title": "Rename page",
  "mnote.page.update_options": "Change page options",
  "mnote.artifact.create_summary": "Write page summary",
  "mnote.artifact.create_ai_note": "Add AI note",
  "panel.page.revert": "Revert an AI edit",
};

export const toolLabel = (name: string) => TOOL_LABELS[name] ?? name;

export function formatTime(iso: string) {
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
