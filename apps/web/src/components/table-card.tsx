import type { ReactNode } from "react";

/**
 * A card holding one table (your agent tokens, a workspace's members): its heading names the section, the table
 * scrolls on its own on a narrow screen. `columns` are the header cells ("" for a column of row actions, named
 * "Actions" for screen readers only).
 */
export function TableCard({
  id,
  title,
  columns,
  children,
}: {
  id: string;
  title: string;
  columns: readonly string[];
  children: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <div className="table-wrap">
        <table className="audit">
          <thead>
            <tr>
              {columns.map((column, i) => (
                // A column of row actions has no visible heading, but a screen reader still names it.
                <th key={i}>{column || <span className="sr-only">Actions</span>}</th>
              ))}
            </tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * A button that acts on one row of a table (revoke an agent token, remove a member): named for its row, so a
 * screen reader hears which one, and off while the server is at it.
 */
export function RowAction({
  name,
  busy,
  onClick,
  children,
}: {
  name: string;
  busy: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button type="button" aria-label={name} disabled={busy} onClick={onClick}>
      {children}
    </button>
  );
}
