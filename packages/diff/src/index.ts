export { diffBlocks, type BlockChange } from "./diff-blocks";
export { summarizeChanges, type SummaryMode } from "./summarize";
export { applySelectedChanges } from "./apply-selected";
export { diffWords, type WordDiffOp, type WordDiffSegment } from "./diff-words";
export { changePosition, reviewRows, type ReviewRow } from "./review-order";
export { suggestedPage, type SuggestedRow } from "./suggested-page";
export { indentChange, markChanges } from "./mark-changes";
export { sameMarks } from "./diff-blocks";
export { sameBlock } from "./diff-blocks";
export {
  applySteps,
  type AnchoredStep,
  type ChangeAnchor,
  changeAnchor,
  ChangeRefused,
  type ChangeSet,
  type ChosenChange,
  type ConflictReason,
  idsToMerge,
  insertedBlocks,
  type Merged,
  mergeChange,
  mergeChanges,
  type PageNow,
  type Place,
  type Placement,
  placementsFromOrder,
  planChosen,
  resolvePlace,
} from "./merge-changes";
