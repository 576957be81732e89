/**
 * The words of a text as the workspace search indexes and queries them (issue 34, decision 0045): one function for
 * both, on both engines. `Intl.Segmenter` finds the words, with a dictionary for Chinese and Japanese (项目计划 →
 * 项目 计划), so a search for 计划 finds 项目计划; the engines' own tokenizers (FTS5 unicode61, PostgreSQL's
 * `simple` configuration) then only split on the spaces put between the words and lower-case them.
 */
const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

/** At most this many words of one text are indexed: a block is at most a few thousand characters anyway. */
const MAX_WORDS = 4000;

export function searchWords(text: string): string[] {
  const words: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    if (!isWordLike) continue;
    words.push(segment.toLowerCase());
    if (words.length >= MAX_WORDS) break;
  }
  return words;
}

/** What the index stores for a text: its words, separated by spaces. */
export function searchText(text: string): string {
  return searchWords(text).join(" ");
}
