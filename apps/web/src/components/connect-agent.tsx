"use client";

import type { Capability } from "@mnote/contract";
import type { AgentTokenItem } from "@mnote/tools";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "~/trpc/react";
import { useConfirmation } from "./confirm-dialog";
import { CopyButton } from "./copy-button";
import { RelativeTime } from "./relative-time";
import { RowAction, TableCard } from "./table-card";

const SCOPES = [
  { id: "page.read", label: "Read pages" },
  { id: "page.write", label: "Edit pages" },
  { id: "artifact.write", label: "Write summaries and AI notes" },
] as const;
const EXPIRY = [1, 7, 30, 90, 365];

const SCOPE_LABELS = new Map<string, string>(SCOPES.map((scope) => [scope.id, scope.label]));

/** Create an agent token (its secret shown this once), list yours with their last use, revoke one. */
export function ConnectAgent({ initial, sessionScopes }: { initial: AgentTokenItem[]; sessionScopes: string[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.panel.agents.list.queryOptions(), initialData: initial });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.panel.agents.list.queryKey() });
  const [label, setLabel] = useState("Hermes");
  const [scopes, setScopes] = useState<Capability[]>(
    SCOPES.map((s) => s.id).filter((id) => sessionScopes.includes(id)),
  );
  const [days, setDays] = useState(30);
  const create = useMutation(trpc.panel.agents.create.mutationOptions({ onSuccess: () => void refresh() }));
  const revoke = useMutation(trpc.panel.agents.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const confirmation = useConfirmation();

  return (
    <>
      <section className="card" aria-labelledby="new-agent">
        <h2 id="new-agent">New agent token</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate({ label, scopes, expiresInDays: days });
          }}
        >
          <p className="row">
            <label htmlFor="agent-label">Name</label>
            <input id="agent-label" value={label} maxLength={80} required onChange={(e) => setLabel(e.target.value)} />
            <label htmlFor="agent-expiry">Expires after</label>
            <select id="agent-expiry" value={days} onChange={(e) => setDays(Number(e.target.value))}>
              {EXPIRY.map((d) => (
                <option key={d} value={d}>
                  {d === 1 ? "1 day" : `${d} days`}
                </option>
              ))}
            </select>
          </p>
          <fieldset className="row">
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope.id} className="inline">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope.id)}
                  disabled={!sessionScopes.includes(scope.id)}
                  onChange={(e) =>
                    setScopes((now) => (e.target.checked ? [...now, scope.id] : now.filter((s) => s !== scope.id)))
                  }
                />
                {scope.label} <code>{scope.id}</code>
              </label>
            ))}
          </fieldset>
          <p className="row">
            <button type="submit" className="primary" disabled={create.isPending}>
              Create agent token
            </button>
          </p>
        </form>
        {create.error && (
          <p role="alert" className="error">
            {create.error.message}
          </p>
        )}
        {create.data && (
          <div className="notice" data-testid="new-agent-token">
            <p>
              <strong>{create.data.label}</strong>: copy this token now — it is shown once, and mnote keeps only its
              hash.
            </p>
            <p className="row">
              <code data-testid="agent-token-secret" id="agent-token-secret">
                {create.data.token}
              </code>
              <CopyButton text={create.data.token} what="the agent token" selectId="agent-token-secret" />
            </p>
            <p className="muted">
              For Hermes&apos;s mnote plugin: <code>MNOTE_TOKEN={"<this token>"}</code> in <code>~/.hermes/.env</code>.
            </p>
          </div>
        )}
      </section>
      <TableCard
        id="agent-tokens"
        title="Your agent tokens"
        columns={["Name", "Scopes", "Created", "Expires", "Last used", "State", ""]}
      >
        {list.data.map((token) => (
          <tr key={token.id} data-testid="agent-token">
            <td data-label="Name">{token.label || <span className="muted">(no name)</span>}</td>
            <td data-label="Scopes">{token.scopes.map((scope) => SCOPE_LABELS.get(scope) ?? scope).join(", ")}</td>
            <td data-label="Created">
              <RelativeTime iso={token.createdAt} />
            </td>
            <td data-label="Expires">{token.expiresAt ? <RelativeTime iso={token.expiresAt} /> : "never"}</td>
            <td data-label="Last used">{token.lastUsedAt ? <RelativeTime iso={token.lastUsedAt} /> : "never"}</td>
            <td data-label="State">{token.revokedAt ? "revoked" : token.live ? "live" : "expired"}</td>
            <td>
              {token.live && (
                <RowAction
                  name={`Revoke ${token.label || "the token with no name"}`}
                  busy={revoke.isPending}
                  onClick={() =>
                    confirmation.ask({
                      title: `Revoke ${token.label ? `“${token.label}”` : "this agent token"}?`,
                      body: (
                        <p>
                          Whatever uses this token (Hermes, an MCP client, a script) is refused from its next call on.
                          This cannot be undone: to connect it again, create a new token.
                        </p>
                      ),
                      confirm: "Revoke the token",
                      onConfirm: () => revoke.mutate({ tokenId: token.id }),
                    })
                  }
                >
                  Revoke
                </RowAction>
              )}
            </td>
          </tr>
        ))}
        {list.data.length === 0 && (
          <tr>
            <td colSpan={7} className="muted">
              No agent tokens yet.
            </td>
          </tr>
        )}
      </TableCard>
      {revoke.error && (
        <p role="alert" className="error">
          {revoke.error.message}
        </p>
      )}
      {confirmation.dialog}
    </>
  );
}
