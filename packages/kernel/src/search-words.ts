/**
 * The words of a text as the workspace search indexes and queries them (issue 34, decision 0045): one function for
 * both, on both engines. `Intl.Segmenter` finds the words, with a dictionary for Chinese and Japanese (项目计划 →
 * 项目 计划), so a search for 计划 finds 项目计划; the engines' own tokenizers (FTS5 unicode61, PostgreSQL's
 * `simple` configuration) then only split on the spaces put between the words and lower-case them.
 */
const segmenter = new Intl.Segmenter("zh", { granularity: "word" });

/** At most this many words of one text are indexed: a block is at most a few thousand characters anyway. */
const MAX_WORDS = 4000;

/**
 * Texts whose words are plainly their runs of ASCII letters and digits: ASCII only, no `_` (it joins words,
 * "snake_case"), and none of the characters that join two letters or digits around them ("3.14", "1,000",
 * "don't", "e.g", "a:b", "1;2") standing between two such. In such a text every other character ends a word
 * by the Unicode word rules (UAX #29) that `Intl.Segmenter` applies, so the runs are its words, found without
 * segmenting: an append's search text was a tenth of the router's JavaScript per write (issue 37). Anything
 * else goes to the segmenter; `search-words.test.ts` checks the two agree.
 */
const NOT_PLAIN = /[\u0080-\uffff]|_|[A-Za-z0-9][.,:;'][A-Za-z0-9]/;
const PLAIN_WORD = /[A-Za-z0-9]+/g;

export function searchWords(text: string): string[] {
  if (!NOT_PLAIN.test(text)) {
    const runs = text.match(PLAIN_WORD) ?? [];
    return (runs.length > MAX_WORDS ? runs.slice(0, MAX_WORDS) : runs).map((word) => word.toLowerCase());
  }
  return segmentedWords(text);
}

/** The words `Intl.Segmenter` finds: what `searchWords` answers for every text. */
export function segmentedWords(text: string): string[] {
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
