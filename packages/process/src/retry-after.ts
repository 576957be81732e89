/** A limiter's wait as an HTTP `Retry-After` value: whole seconds, at least one. One rule for every door. */
export function retryAfterSeconds(retryAfterMs: number): string {
  return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
}
