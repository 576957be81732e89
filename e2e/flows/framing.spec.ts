import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { agentCall, e2eState, expect, openPage, proposalCard, signIn, test } from "./support";
import { FLOW_PAGES } from "./pages";

/**
 * Issue 31, finding 3: a page on another port of the same host (same site, so the Lax session cookie goes along)
 * framed the panel, rendered Ada signed in, and a click applied a held title change. Every panel response now says
 * `frame-ancestors 'none'` and `X-Frame-Options: DENY`: Chromium does not render the panel in the frame, so there is
 * nothing to click.
 */
let attacker: Server;
let attackerUrl: string;

test.beforeAll(async () => {
  attacker = createServer((req, res) => {
    const target = new URL(decodeURIComponent((req.url ?? "/").slice(1)) || "/", e2eState().webUrl);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><title>not mnote</title><h1>win a prize</h1>` +
        `<iframe id="victim" src="${target.href}" width="1200" height="800"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

test("a page on another port cannot frame the panel: the frame renders nothing, so no click applies a held change", async ({
  page,
  cspViolations,
}) => {
  const doc = FLOW_PAGES.framing.id;
  const ws = e2eState().workspaceId;
  await signIn(page, "ada");
  const held = await agentCall("mnote_page_update_title", { title: "Framed and renamed" }, { documentId: doc });
  expect(held).toMatchObject({ ok: true, audit: { effect: "dry_run" } });
  // Signed in, the panel itself shows the proposal with its Approve button (the framed copy must not).
  await openPage(page, doc);
  await expect(proposalCard(page, held.request.toolCallId).getByRole("button", { name: "Approve" })).toBeVisible();

  for (const path of ["/", `/w/${ws}/p/${doc}`, `/w/${ws}/members`, "/agents", "/signin"]) {
    const answer = await page.request.get(path);
    expect(answer.headers()["x-frame-options"], path).toBe("DENY");
    expect(answer.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(answer.headers()["x-content-type-options"], path).toBe("nosniff");
    expect(answer.headers()["referrer-policy"], path).toBe("same-origin");

    await page.goto(`${attackerUrl}/${encodeURIComponent(path)}`);
    await expect(page.getByRole("heading", { name: "win a prize" })).toBeVisible();
    const frame = page.frameLocator("#victim");
    // Chromium blocks the framed document: no element of the panel exists in the frame.
    await expect(frame.locator("main, nav, .brand, button")).toHaveCount(0);
    await expect(frame.getByRole("button", { name: "Approve" })).toHaveCount(0);
  }
  // Route handlers (JSON, redirects) carry a fixed policy instead of the pages' nonce one: never framed either.
  for (const path of ["/oauth/metadata", "/api/trpc/panel.session.me"]) {
    const answer = await page.request.get(path);
    expect(answer.headers()["x-frame-options"], path).toBe("DENY");
    expect(answer.headers()["content-security-policy"], path).toBe("default-src 'none'; frame-ancestors 'none'");
  }
  // Clicking where the Approve button would be changes nothing.
  await page.locator("#victim").click({ position: { x: 600, y: 400 } });
  await openPage(page, doc);
  // The held rename still shows as a suggestion in the heading; the title itself is unchanged.
  await expect(page.getByTestId("page-title")).toHaveAttribute("data-title", FLOW_PAGES.framing.title);
  // Chromium says why the frame stayed empty; that refusal is the point of this flow, not a broken panel.
  cspViolations.splice(0, cspViolations.length, ...cspViolations.filter((text) => !/frame-ancestors/.test(text)));
});
