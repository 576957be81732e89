import type { Block } from "@mnote/contract";

/** Paragraphs `${prefix}_p1`, `${prefix}_p2`, … with these texts: the ids the flows name. */
function paragraphs(prefix: string, ...texts: string[]): Block[] {
  return texts.map((text, i) => ({ id: `${prefix}_p${i + 1}`, type: "paragraph", text }));
}

/** The page's `n`th heading, `${prefix}_h${n}` (the first, of level 1, unless told). */
function heading(prefix: string, text: string, level: 1 | 2 | 3 = 1, n = 1): Block {
  return { id: `${prefix}_h${n}`, type: "heading", level, text };
}

/**
 * One page per flow that writes (all flows share one database), owned by Ada in ws_demo.
 * global-setup.ts creates them with `mnote admin page create` while the stack boots.
 */
export const FLOW_PAGES = {
  framing: {
    id: "doc_e2e_framed",
    title: "Framed plan",
    blocks: [heading("fr", "Plan"), ...paragraphs("fr", "Keep the scope small")],
  },
  askHermes: {
    id: "doc_e2e_askplan",
    title: "Team plan",
    blocks: [heading("tp", "Plan"), ...paragraphs("tp", "Ship the panel")],
  },
  askHermesMarkdown: {
    id: "doc_e2e_askdeadline",
    title: "Launch deadline",
    blocks: [heading("ad", "Launch"), ...paragraphs("ad", "The copy is due on Friday")],
  },
  askFromThread: {
    id: "doc_e2e_ask_from_thread",
    title: "Launch date",
    blocks: [heading("af", "Launch"), ...paragraphs("af", "We launch on Friday.", "Pricing stays the same.")],
  },
  pageEdit: {
    id: "doc_e2e_runbook",
    title: "On-call runbook",
    blocks: [
      heading("rb", "On call"),
      ...paragraphs("rb", "Check the dashboard", "Page the lead", "Write the incident note"),
    ],
  },
  proposeApprove: {
    id: "doc_e2e_launch",
    title: "Launch checklist",
    blocks: [heading("lc", "Launch"), ...paragraphs("lc", "Draft the announcement", "Email the beta users")],
  },
  reject: {
    id: "doc_e2e_hiring",
    title: "Hiring plan",
    blocks: paragraphs("hp", "Two engineers in Q3."),
  },
  conflict: {
    id: "doc_e2e_review",
    title: "Quarterly review",
    blocks: paragraphs("qr", "Revenue up 12%."),
  },
  perChange: {
    id: "doc_e2e_release",
    title: "Release notes",
    blocks: [heading("rn", "Release notes"), ...paragraphs("rn", "Faster sync", "Dark mode", "Offline search")],
  },
  revert: {
    id: "doc_e2e_budget",
    title: "Budget",
    blocks: paragraphs("bu", "Budget: 10k", "Owner: Ada"),
  },
  holdArtifacts: {
    id: "doc_e2e_heldnote",
    title: "Shipping dates",
    blocks: [{ id: "sd_p1", type: "paragraph", text: "Version 2 ships on Friday." }],
  },
  hold: {
    id: "doc_e2e_roster",
    title: "Team roster",
    blocks: paragraphs("tr", "Ada, Ben, Cy"),
  },
  live: {
    id: "doc_e2e_standup",
    title: "Standup notes",
    blocks: paragraphs("sn", "Yesterday: shipped the bridge."),
  },
  firstPaint: {
    id: "doc_e2e_retro",
    title: "Sprint retro",
    blocks: paragraphs("sr", "What went well: the demo."),
  },
  optionWarning: {
    id: "doc_e2e_contract",
    title: "Vendor contract",
    blocks: paragraphs("vc", "Renewal in May."),
  },
  accessibility: {
    id: "doc_e2e_a11y",
    title: "Accessibility review",
    blocks: [
      heading("ax", "Checklist"),
      { id: "ax_t1", type: "todo", checked: true, text: "Labels on every control" },
      ...paragraphs("ax", "Contrast of the diff colours"),
    ],
  },
  screenshot: {
    id: "doc_e2e_onboarding",
    title: "Onboarding guide",
    blocks: [
      heading("og", "Your first week"),
      ...paragraphs("og", "Welcome! This guide walks you through your first week."),
      heading("og", "Day one", 2, 2),
      { id: "og_t1", type: "todo", checked: true, text: "Get your laptop from IT" },
      { id: "og_t2", type: "todo", checked: false, text: "Read the old wiki" },
      { id: "og_t3", type: "todo", checked: false, text: "Meet your buddy" },
      { id: "og_q1", type: "quote", text: "Ask early, ask often." },
    ],
  },
  keyboard: {
    id: "doc_e2e_keyboard",
    title: "Keyboard review",
    blocks: paragraphs("kb", "Tabs move with the arrow keys", "Enter approves"),
  },
  attributes: {
    id: "doc_e2e_attributes",
    title: "Sprint tasks",
    blocks: [
      heading("at", "This sprint", 2),
      { id: "at_t1", type: "todo", checked: false, text: "Write the migration" },
      { id: "at_c1", type: "code", language: "", text: "npm test" },
      ...paragraphs("at", "Ask early, ask often."),
    ],
  },
  formatting: {
    id: "doc_e2e_formatting",
    title: "Launch notes",
    blocks: [
      { id: "fm_p1", type: "paragraph", text: "Ship on Friday" },
      { id: "fm_l1", type: "bulleted", text: "Copy" },
      { id: "fm_l2", type: "bulleted", text: "Final read", indent: 1 },
      { id: "fm_p2", type: "paragraph", text: "<img src=x onerror=alert(1)> see the docs" },
    ],
  },
  atSize: {
    id: "doc_e2e_at_size",
    title: "Thousand-block handbook",
    blocks: sizedPage("sz", 1000),
  },
  atHundred: {
    id: "doc_e2e_at_100",
    title: "Hundred-block note",
    blocks: sizedPage("hd", 100),
  },
  atTenThousand: {
    id: "doc_e2e_at_10k",
    title: "Ten-thousand-block archive",
    blocks: sizedPage("tk", 10_000),
  },
  phone: {
    id: "doc_e2e_phone",
    title: "Read on a phone",
    blocks: sizedPage("ph", 300),
  },
  partial: {
    id: "doc_e2e_partial",
    title: "Offsite agenda",
    blocks: paragraphs("pa", "Morning: roadmap", "Lunch by the lake", "Afternoon: hiring"),
  },
  inPage: {
    id: "doc_e2e_in_page",
    title: "Release plan in the page",
    blocks: [
      heading("ip", "Release"),
      ...paragraphs("ip", "We ship on Monday.", "The old importer stays.", "Thanks to everyone."),
    ],
  },
  editAccept: {
    id: "doc_e2e_edit_accept",
    title: "Support hours",
    blocks: paragraphs("ea", "We answer within a day."),
  },
  rejectReason: {
    id: "doc_e2e_reject_reason",
    title: "Pricing",
    blocks: paragraphs("rr", "Free for small teams."),
  },
  keys: {
    id: "doc_e2e_review_keys",
    title: "Review by keyboard",
    blocks: paragraphs("rk", "One", "Two", "Three"),
  },
  keysTyped: {
    id: "doc_e2e_keys_typed",
    title: "Keys as typed",
    blocks: paragraphs("kt", "Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"),
  },
  retry: {
    id: "doc_e2e_retry",
    title: "Flaky network",
    blocks: paragraphs("rt", "Requests fail sometimes."),
  },
  conflictMerge: {
    id: "doc_e2e_quarter_merge",
    title: "Quarter in numbers",
    blocks: paragraphs("cm", "Revenue up 12%.", "Costs flat.", "Hiring paused."),
  },
  conflictEdit: {
    id: "doc_e2e_conflict_edit",
    title: "Launch copy",
    blocks: paragraphs("ce", "Launch on Monday.", "Tell the press."),
  },
  revertOne: {
    id: "doc_e2e_revert_one",
    title: "Rollout plan",
    blocks: paragraphs("ro", "Rollout", "Risks"),
  },
  comments: {
    id: "doc_e2e_comments",
    title: "Launch spec",
    blocks: [heading("cs", "Launch"), ...paragraphs("cs", "We launch on Friday.", "Pricing stays the same.")],
  },
  personComments: {
    id: "doc_e2e_person_comments",
    title: "Offsite agenda",
    blocks: [heading("pc", "Offsite"), ...paragraphs("pc", "Day one: planning.", "Day two: hiking.")],
  },
  editFormat: {
    id: "doc_e2e_edit_format",
    title: "Standup",
    blocks: paragraphs("ef", "The team meets every morning."),
  },
  titleInPage: {
    id: "doc_e2e_title_in_page",
    title: "Roadmap",
    blocks: paragraphs("ti", "Q1: importer", "Q2: search", "Q3: sharing", "Q4: mobile", "Later: offline", "Never: fax"),
  },
  layout: {
    id: "doc_e2e_layout",
    title: "Field notes",
    blocks: [
      heading("fn", "Field notes"),
      ...paragraphs(
        "fn",
        ...Array.from(
          { length: 11 },
          (_, i) =>
            `Note ${i + 1}: the crew checked the north fence, logged the weather and walked the long way back to camp before dark.`,
        ),
      ),
    ],
  },
} satisfies Record<string, { id: string; title: string; blocks: Block[] }>;

/** A long page: a heading every 25 blocks, some todos, paragraphs otherwise. Ids are `${prefix}_0000` on. */
export function sizedPage(prefix: string, length: number): Block[] {
  return Array.from({ length }, (_, i): Block => {
    const id = `${prefix}_${String(i).padStart(4, "0")}`;
    if (i % 25 === 0) return { id, type: "heading", level: 2, text: `Section ${i / 25 + 1}` };
    if (i % 7 === 0) return { id, type: "todo", checked: false, text: `Task ${i}` };
    return { id, type: "paragraph", text: `Paragraph ${i} of the handbook.` };
  });
}

export type FlowPageKey = keyof typeof FLOW_PAGES;
