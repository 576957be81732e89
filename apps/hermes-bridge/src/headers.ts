/** First value of a header that may arrive as a list. */
export function headerValue(value: string | string[] | undefined | null): string | undefined {
  return Array.isArray(value) ? value[0] : (value ?? undefined);
}
