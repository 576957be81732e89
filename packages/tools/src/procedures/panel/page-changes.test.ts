import { hashToken } from "@mnote/kernel";
import { describe, expect, it } from "vitest";
import { createWorld, type World } from "../../test-support";
import type { PageChangeEvent } from "./page-changes";

type Tracked = { id: string; data: PageChangeEvent };

/** Opens panel.page.changes for `token` through the router's caller; `next` reads one event (bounded wait). */
async function subscribe(
  world: World,
  token: string,
  ref: { workspaceId: string; documentId: string; lastEventId?: string },
) {
  // The caller hands out what the procedure yields: tracked() envelopes, [id, data].
  const stream = (await world.caller(token).panel.page.changes(ref)) as AsyncIterable<[string, PageChangeEvent]>;
  const iterator = stream[Symbol.asyncIterator]();
  return {
    async next(timeoutMs = 3_000): Promise<Tracked> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error("no event in time")), timeoutMs)),
      );
      try {
        const step = await Promise.race([iterator.next(), timeout]);
        if (step.done) throw new Error("the stream ended");
        return { id: step.value[0], data: step.value[1] };
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      void iterator.return?.();
    },
  };
}

async function agentDryRun(world: World, title: string) {
  const result = await world.call(
    "mnote.page.update_title",
    world.envelope("mnote.page.update_title", { title }, { dryRun: true }),
    world.tokens.ownerAgent,
  );
  expect(result.ok).toBe(true);
}

describe("panel.page.changes", () => {
  it("opens with the page's cursor, then pushes one event per change to this page, never for another page", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const stream = await subscribe(w, w.tokens.owner, ref);
    try {
      const first = await stream.next();
      expect(first.data).toEqual({ changed: false, kinds: [], revision: 1 });
      // A change on another page of the workspace says nothing here; the proposal on this page does.
      await w.kernel.appendAudit({
        identity: {
          toolName: "mnote.page.get",
          workspaceId: w.ids.ws,
          documentId: w.ids.privatePage,
          actorId: w.ids.owner,
          tokenId: null,
          holder: "agent",
          sessionId: null,
          runId: null,
          toolCallId: null,
          traceId: null,
        },
        effect: "read",
        outcome: "ok",
      });
      await agentDryRun(w, "Proposed title");
      const pushed = await stream.next();
      expect(pushed.data.changed).toBe(true);
      expect(pushed.data.kinds).toContain("proposal");
      expect(pushed.id).not.toBe(first.id);
      const [proposal] = await w.caller(w.tokens.owner).panel.proposals.list(ref);
      expect(pushed.id).toBe(`1.${proposal!.id}`);
    } finally {
      stream.close();
    }
  });

  it("tells a client resuming from an old event id that it missed a change, and one that missed nothing that it did not", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const first = await subscribe(w, w.tokens.owner, ref);
    const { id } = await first.next();
    first.close();
    const current = await subscribe(w, w.tokens.owner, { ...ref, lastEventId: id });
    expect((await current.next()).data.changed).toBe(false);
    current.close();
    await agentDryRun(w, "While the panel was away");
    const resumed = await subscribe(w, w.tokens.owner, { ...ref, lastEventId: id });
    try {
      const event = await resumed.next();
      expect(event.data.changed).toBe(true);
      expect(event.id).not.toBe(id);
    } finally {
      resumed.close();
    }
  });

  it("started from the cursor the page was rendered at, reports a change that landed before the stream opened", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    // What the page route does: read the cursor, then the page; the browser opens the stream later.
    const { cursor } = await w.caller(w.tokens.owner).panel.page.activity(ref);
    await agentDryRun(w, "Between the first paint and the stream");
    const stream = await subscribe(w, w.tokens.owner, { ...ref, lastEventId: cursor });
    try {
      const first = await stream.next();
      expect(first.data.changed).toBe(true);
      expect(first.id).not.toBe(cursor);
    } finally {
      stream.close();
    }
  });

  it("is refused like the page itself: a stranger gets the tools' unreadable-page refusal, an agent token FORBIDDEN", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    await expect(subscribe(w, w.tokens.stranger, ref).then((s) => s.next())).rejects.toMatchObject({
      code: "FORBIDDEN",
      cause: { code: "mnote_tool_permission_denied" },
    });
    await expect(subscribe(w, w.tokens.ownerAgent, ref).then((s) => s.next())).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });

  it("ends at the next change once the session's token is revoked", async () => {
    const w = await createWorld();
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const stream = await subscribe(w, w.tokens.owner, ref);
    try {
      await stream.next();
      const record = await w.kernel.findTokenByHash(hashToken(w.tokens.owner));
      await w.kernel.admin.revokeToken(record!.id);
      await agentDryRun(w, "After sign-out");
      await expect(stream.next()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    } finally {
      stream.close();
    }
  });
});
