import { canonicalToolName } from "@mnote/contract";
import type { AskEvent } from "./client";

/**
 * What the panel's server does with a run's approval requests (issue 19). Hermes asks for approval from
 * inside a tool (tools/approval.py: a dangerous terminal command, for one); its event names no tool. A
 * request while only mnote tools are running is relayed with `once` and `deny` only (`session` and
 * `always` change Hermes's state for every later run on the host); any other request is for a tool that
 * is not mnote's and is denied by the server, never shown as a choice.
 */
export const RELAYED_CHOICES = ["once", "deny"] as const;
export type RelayedChoice = (typeof RELAYED_CHOICES)[number];

export type ApprovalVerdict = { relay: true; choices: RelayedChoice[] } | { relay: false; reason: string };

export const NOT_MNOTE_APPROVAL =
  "The panel refused it without asking you: it is not for one of mnote's tools, and a question asked from the panel may use only those.";

/** Follows a run's tool calls to tell whose approval request arrives. */
export class ApprovalPolicy {
  private readonly running: string[] = [];

  observe(event: AskEvent): void {
    if (event.type === "tool.started") this.running.push(event.tool);
    if (event.type === "tool.completed") {
      const index = this.running.indexOf(event.tool);
      if (index !== -1) this.running.splice(index, 1);
    }
  }

  verdict(request: Extract<AskEvent, { type: "approval.request" }>): ApprovalVerdict {
    const mnoteOnly = this.running.length > 0 && this.running.every((tool) => canonicalToolName(tool) !== null);
    if (!mnoteOnly) return { relay: false, reason: NOT_MNOTE_APPROVAL };
    const choices = RELAYED_CHOICES.filter((choice) => request.choices.includes(choice));
    return { relay: true, choices: choices.includes("deny") ? choices : [...choices, "deny"] };
  }
}
