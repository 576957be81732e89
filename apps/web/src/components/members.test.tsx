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
    renderPanelView(<Members workspaceId={workspaceId} initial={initial} />, w, w.tokens.owner);
    const table = screen.getByRole("region", { name: "Members" });
    expect(within(table).getAllByRole("columnheader")).toHaveLength(3);
    const rows = () => within(table).getAllByTestId("member");
    expect(rows()).toHaveLength(initial.members.length);
    expect(screen.getByRole("combobox", { name: "Role of editor" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Remove viewer" }));
    await waitFor(() => expect(rows()).toHaveLength(initial.members.length - 1));
    expect(screen.queryByRole("button", { name: "Remove viewer" })).toBeNull();
    await w.kernel.close();
  });

  it("an owner invites an email: the same words whether or not anyone has it, and it waits for an answer", async () => {
    const w = await createWorld();
    const workspaceId = w.ids.ws;
    await w.kernel.admin.setUserEmail(w.ids.stranger, "stranger@example.com");
    const initial = await w.caller(w.tokens.owner).panel.members.list({ workspaceId });
    const { queryClient } = renderPanelView(<Members workspaceId={workspaceId} initial={initial} />, w, w.tokens.owner);
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

  it("a viewer reads the members and their roles, with no role picker, Remove or invite form", async () => {
    const w = await createWorld();
    const workspaceId = w.ids.ws;
    const initial = await w.caller(w.tokens.viewer).panel.members.list({ workspaceId });
    expect(initial.canManage).toBe(false);
    const { queryClient } = renderPanelView(
      <Members workspaceId={workspaceId} initial={initial} />,
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
