/**
 * A panel query that failed: what could not be loaded, the server's words (its AppError message), and Retry.
 * The one way every view says it.
 */
export function LoadFailed({
  what,
  query,
}: {
  what: string;
  query: { error: { message: string } | null; refetch: () => Promise<unknown> };
}) {
  return (
    <p role="alert" className="error">
      Could not load {what}: {query.error?.message}{" "}
      <button type="button" className="small" onClick={() => void query.refetch()}>
        Retry
      </button>
    </p>
  );
}
