/**
 * "1 block", "12 blocks": a count with its noun, for the sentences people and models read (plans, descriptions).
 * "block(s)" reads like a form to fill in (issue 36); the plural is the noun with an "s" unless it is given.
 */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
