import type { Block } from "@mnote/contract";

/**
 * One page per flow that writes (all flows share one database), owned by Ada in ws_demo.
 * global-setup.ts creates them with `mnote admin page create` while the stack boots.
 */
export const FLOW_PAGES = {
  askHermes: {
    id: "doc_e2e_askplan",
    title: "Team plan",
    blocks: [
      { id: "tp_h1", type: "heading", level: 1, text: "Plan" },
      { id: "tp_p1", type: "paragraph", text: "Ship the panel" },
    ],
  },
  pageEdit: {
    id: "doc_e2e_runbook",
    title: "On-call runbook",
    blocks: [
      { id: "rb_h1", type: "heading", level: 1, text: "On call" },
      { id: "rb_p1", type: "paragraph", text: "Check the dashboard" },
      { id: "rb_p2", type: "paragraph", text: "Page the lead" },
      { id: "rb_p3", type: "paragraph", text: "Write the incident note" },
    ],
  },
  proposeApprove: {
    id: "doc_e2e_launch",
    title: "Launch checklist",
    blocks: [
      { id: "lc_h1", type: "heading", level: 1, text: "Launch" },
      { id: "lc_p1", type: "paragraph", text: "Draft the announcement" },
      { id: "lc_p2", type: "paragraph", text: "Email the beta users" },
    ],
  },
  reject: {
    id: "doc_e2e_hiring",
    title: "Hiring plan",
    blocks: [{ id: "hp_p1", type: "paragraph", text: "Two engineers in Q3." }],
  },
  conflict: {
    id: "doc_e2e_review",
    title: "Quarterly review",
    blocks: [{ id: "qr_p1", type: "paragraph", text: "Revenue up 12%." }],
  },
  perChange: {
    id: "doc_e2e_release",
    title: "Release notes",
    blocks: [
      { id: "rn_h1", type: "heading", level: 1, text: "Release notes" },
      { id: "rn_p1", type: "paragraph", text: "Faster sync" },
      { id: "rn_p2", type: "paragraph", text: "Dark mode" },
      { id: "rn_p3", type: "paragraph", text: "Offline search" },
    ],
  },
  revert: {
    id: "doc_e2e_budget",
    title: "Budget",
    blocks: [
      { id: "bu_p1", type: "paragraph", text: "Budget: 10k" },
      { id: "bu_p2", type: "paragraph", text: "Owner: Ada" },
    ],
  },
  hold: {
    id: "doc_e2e_roster",
    title: "Team roster",
    blocks: [{ id: "tr_p1", type: "paragraph", text: "Ada, Ben, Cy" }],
  },
  live: {
    id: "doc_e2e_standup",
    title: "Standup notes",
    blocks: [{ id: "sn_p1", type: "paragraph", text: "Yesterday: shipped the bridge." }],
  },
  firstPaint: {
    id: "doc_e2e_retro",
    title: "Sprint retro",
    blocks: [{ id: "sr_p1", type: "paragraph", text: "What went well: the demo." }],
  },
  optionWarning: {
    id: "doc_e2e_contract",
    title: "Vendor contract",
    blocks: [{ id: "vc_p1", type: "paragraph", text: "Renewal in May." }],
  },
  accessibility: {
    id: "doc_e2e_a11y",
    title: "Accessibility review",
    blocks: [
      { id: "ax_h1", type: "heading", level: 1, text: "Checklist" },
      { id: "ax_t1", type: "todo", checked: true, text: "Labels on every control" },
      { id: "ax_p1", type: "paragraph", text: "Contrast of the diff colours" },
    ],
  },
  screenshot: {
    id: "doc_e2e_onboarding",
    title: "Onboarding guide",
    blocks: [
      { id: "og_h1", type: "heading", level: 1, text: "Your first week" },
      { id: "og_p1", type: "paragraph", text: "Welcome! This guide walks you through your first week." },
      { id: "og_h2", type: "heading", level: 2, text: "Day one" },
      { id: "og_t1", type: "todo", checked: true, text: "Get your laptop from IT" },
      { id: "og_t2", type: "todo", checked: false, text: "Read the old wiki" },
      { id: "og_t3", type: "todo", checked: false, text: "Meet your buddy" },
      { id: "og_q1", type: "quote", text: "Ask early, ask often." },
    ],
  },
  keyboard: {
    id: "doc_e2e_keyboard",
    title: "Keyboard review",
    blocks: [
      { id: "kb_p1", type: "paragraph", text: "Tabs move with the arrow keys" },
      { id: "kb_p2", type: "paragraph", text: "Enter approves" },
    ],
  },
  attributes: {
    id: "doc_e2e_attributes",
    title: "Sprint tasks",
    blocks: [
      { id: "at_h1", type: "heading", level: 2, text: "This sprint" },
      { id: "at_t1", type: "todo", checked: false, text: "Write the migration" },
      { id: "at_c1", type: "code", language: "", text: "npm test" },
      { id: "at_p1", type: "paragraph", text: "Ask early, ask often." },
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
    blocks: [
      { id: "pa_p1", type: "paragraph", text: "Morning: roadmap" },
      { id: "pa_p2", type: "paragraph", text: "Lunch by the lake" },
      { id: "pa_p3", type: "paragraph", text: "Afternoon: hiring" },
    ],
  },
  inPage: {
    id: "doc_e2e_in_page",
    title: "Release plan in the page",
    blocks: [
      { id: "ip_h1", type: "heading", level: 1, text: "Release" },
      { id: "ip_p1", type: "paragraph", text: "We ship on Monday." },
      { id: "ip_p2", type: "paragraph", text: "The old importer stays." },
      { id: "ip_p3", type: "paragraph", text: "Thanks to everyone." },
    ],
  },
  editAccept: {
    id: "doc_e2e_edit_accept",
    title: "Support hours",
    blocks: [{ id: "ea_p1", type: "paragraph", text: "We answer within a day." }],
  },
  rejectReason: {
    id: "doc_e2e_reject_reason",
    title: "Pricing",
    blocks: [{ id: "rr_p1", type: "paragraph", text: "Free for small teams." }],
  },
  keys: {
    id: "doc_e2e_review_keys",
    title: "Review by keyboard",
    blocks: [
      { id: "rk_p1", type: "paragraph", text: "One" },
      { id: "rk_p2", type: "paragraph", text: "Two" },
      { id: "rk_p3", type: "paragraph", text: "Three" },
    ],
  },
  retry: {
    id: "doc_e2e_retry",
    title: "Flaky network",
    blocks: [{ id: "rt_p1", type: "paragraph", text: "Requests fail sometimes." }],
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
