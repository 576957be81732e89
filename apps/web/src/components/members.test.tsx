// @vitest-environment happy-dom
import { createWorld } from "@mnote/tools/testing";
import { cleanup, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { Members } from "./members";
import { renderPanelView } from "./test-render";

afterEach(cleanup);

describe("Members", () => {
  it("an owner gets a role picker and a Remove named for each member; removing one takes its row away", async () => {
    const w = await createWorld();
    const workspaceId = w.ids.ws;
    const initial = await w.caller(w.tokens.owner).panel.members.list({ workspaceId });
    renderPanelView(<Members workspaceId={workspaceId} workspaceName="Team" initial={initial} />, w, w.tokens.owner);
    const table = screen.getByRole("region", { name: "Members" });
    expect(within(table).getAllByRole("columnheader")).toHaveLength(3);
    const rows = () => within(table).getAllByTestId("member");
    expect(rows()).toHaveLength(initial.members.length);
    expect(screen.getByRole("combobox", { name: "Role of editor" })).toBeTruthy();
    // Remove asks first, naming whom and where; Cancel changes nothing.
    fireEvent.click(screen.getByRole("button", { name: "Remove viewer" }));
    const dialog = screen.getByRole("dialog", { name: "Remove viewer from Team?" });
    expect(dialog.textContent).toContain(
      "viewer loses access to the pages of Team from their next action on, and so do their agents.",
    );
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(rows()).toHaveLength(initial.members.length);
    expect(await w.kernel.admin.listMembers(workspaceId)).toHaveLength(initial.members.length);
    fireEvent.click(screen.getByRole("button", { name: "Remove viewer" }));
    fireEvent.click(
      within(screen.getByRole("dialog", { name: "Remove viewer from Team?" })).getByRole("button", {
        name: "Remove viewer",
      }),
    );
    await waitFor(() => expect(rows()).toHaveLength(initial.members.length - 1));
    expect(screen.queryByRole("button", { name: "Remove viewer" })).toBeNull();
    await w.kernel.close();
  });

  it("an owner invites an email: the same words whether or not anyone has it, and it waits for an answer", async () => {
    const w = await createWorld();
    const workspaceId = w.ids.ws;
    await w.kernel.admin.setUserEmail(w.ids.stranger, "stranger@example.com");
    const initial = await w.caller(w.tokens.owner).panel.members.list({ workspaceId });
    const { queryClient } = renderPanelView(
      <Members workspaceId={workspaceId} workspaceName="Team" initial={initial} />,
      w,
      w.tokens.owner,
    );
    const said: string[] = [];
    for (const email of ["stranger@example.com", "nobody@example.com"]) {
      fireEvent.change(screen.getByLabelText("Email"), { target: { value: email } });
      fireEvent.click(screen.getByRole("button", { name: "Invite" }));
      await waitFor(() => expect(screen.getByRole("status").textContent).toContain(email));
      said.push(screen.getByRole("status").textContent.replace(email, "…"));
    }
    expect(said[0]).toBe(said[1]);
    await waitFor(() => expect(screen.getAllByTestId("invitation")).toHaveLength(2));
    // Invited is not a member yet.
    expect(within(screen.getByRole("region", { name: "Members" })).getAllByTestId("member")).toHaveLength(
      initial.members.length,
    );
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    await w.kernel.close();
  });

  it("a refusal shows in words under the member it was about, and a later one replaces it", async () => {
    const w = await createWorld();
    const workspaceId = w.ids.ws;
    const initial = await w.caller(w.tokens.owner).panel.members.list({ workspaceId });
    const { queryClient } = renderPanelView(
      <Members workspaceId={workspaceId} workspaceName="Team" initial={initial} />,
      w,
      w.tokens.owner,
    );
    // The only owner makes herself a viewer: refused, beside her row, with no id in it.
    fireEvent.change(screen.getByRole("combobox", { name: "Role of owner" }), { target: { value: "viewer" } });
    await waitFor(() => expect(screen.getAllByTestId("member-problem")).toHaveLength(1));
    const problem = screen.getByTestId("member-problem");
    expect(problem.textContent).toBe(
      "You are the only owner of Team, and a workspace needs an owner: make another member an owner first.",
    );
    expect(problem.previousElementSibling?.textContent).toContain("owner (you)");
    expect(problem.textContent).not.toContain(w.ids.owner);
    // The editor is removed elsewhere meanwhile; changing their role here is refused beside their row, in place of
    // the first refusal (never two, never the older one).
    await w.kernel.admin.removeMember({ workspaceId, userId: w.ids.editor });
    fireEvent.change(screen.getByRole("combobox", { name: "Role of editor" }), { target: { value: "viewer" } });
    await waitFor(() => expect(screen.getByRole("alert").textContent).toMatch(/^editor is no longer a member of Team/));
    expect(screen.getAllByRole("alert")).toHaveLength(1);
    // The list is read again: the editor's row (and the refusal's place beside it) is gone, the words stay.
    await waitFor(() => expect(screen.queryByRole("combobox", { name: "Role of editor" })).toBeNull());
    expect(screen.getByRole("alert").textContent).toMatch(/^editor is no longer a member of Team/);
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    await w.kernel.close();
  });

  it("a viewer reads the members and their roles, with no role picker, Remove or invite form", async () => {
    const w = await createWorld();
    const workspaceId = w.ids.ws;
    const initial = await w.caller(w.tokens.viewer).panel.members.list({ workspaceId });
    expect(initial.canManage).toBe(false);
    const { queryClient } = renderPanelView(
      <Members workspaceId={workspaceId} workspaceName="Team" initial={initial} />,
      w,
      w.tokens.viewer,
    );
    const table = screen.getByRole("region", { name: "Members" });
    expect(within(table).getAllByRole("columnheader")).toHaveLength(2);
    expect(within(table).getAllByTestId("member")).toHaveLength(initial.members.length);
    expect(screen.queryByRole("combobox")).toBeNull();
    expect(screen.queryByRole("button", { name: /^Remove/ })).toBeNull();
    expect(screen.queryByRole("region", { name: "Invite a member" })).toBeNull();
    // The list refreshes on mount (its initial data is the server render's): let it land before the kernel closes.
    await waitFor(() => expect(queryClient.isFetching()).toBe(0));
    await w.kernel.close();
  });
});
