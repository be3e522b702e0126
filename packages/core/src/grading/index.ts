export {
  EXTRACTION_MODES,
  EXTRACTION_RULES,
  extractAnswer,
  RULES_OF_MODE,
  type ExtractedAnswer,
  type ExtractionMode,
  type ExtractionRule,
} from "./extract";
export { normaliseAnswer, parseAnswer, serialiseAnswer, type AnswerNode } from "./structures";
export type { NormaliseOptions } from "./normalise";
export { parseWordNumber } from "./word-numbers";
export {
  DEFAULT_GRADE_OPTIONS,
  GRADE_READINGS,
  gradeAnswer,
  percentReadingAllowed,
  referenceAnswerList,
  type GradeReading,
  type GradedSide,
  type GradeOptions,
  type GradeResult,
} from "./grade";
export type { GradeReason } from "./types";
export { clusterAnswers, majorityAnswer, type AnswerCluster, type AnswerVote } from "./majority-answer";
export { warmUpCas } from "./symbolic";
