export { exportTrainingSet, type ExportedFile, type TrainingSetReport, type TrainingSetSplitReport } from "./export";
export {
  trainingSetExportSchema,
  parseTrainingSetExportOptions,
  TRAINING_SET_FORMATS,
  SOLUTION_FORMATS,
  isSolutionFormat,
  type TrainingSetExportInput,
  type TrainingSetExportOptions,
  type TrainingSetFormat,
} from "./options";
export { exportSeeds, heldOutProblemCount, splitProblems } from "./split";
export { OPENRLHF_REWARD_PY, TRL_REWARD_PY, VERL_REWARD_PY } from "./reward-scripts";
export type { TrainingExtraInfo, TrainingRow } from "./rows";
export {
  launchPlan,
  powerOfTwoAtMost,
  minimumTrainRows,
  promptTokenBound,
  PROMPT_TOKEN_MARGIN,
  GRPO_SAMPLES,
  TRAINER_GPUS,
  type LaunchPlan,
  type LaunchInput,
} from "./launch";
export { TRAINER_RELEASES, requirementsTxt, releaseRecord, type TrainerRelease, type PinnedRequirement } from "./releases";
export {
  OPENRLHF_PRM_KEYS,
  OPENRLHF_PRM_PLACEHOLDER,
  OPENRLHF_PRM_REWARD_TOKENS,
  OPENRLHF_PRM_LAYOUT,
  OpenrlhfPrmSolution,
  openrlhfPrmInput,
  openrlhfPrmRow,
  type OpenrlhfPrmRow,
} from "./openrlhf-prm";
export { datasetCard, datasetCardHeader, sizeCategory, cardLicense, type CardFeature, type DatasetCardInput } from "./dataset-card";
export { cardFeatures } from "./export";
export { PRM_COLUMNS, PRM_STEP_SEPARATOR, type PrmRow, type PrmExtraInfo } from "./trl-prm";
