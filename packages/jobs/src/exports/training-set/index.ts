export { exportTrainingSet, type ExportedFile, type TrainingSetReport, type TrainingSetSplitReport } from "./export";
export {
  trainingSetExportSchema,
  parseTrainingSetExportOptions,
  TRAINING_SET_FORMATS,
  type TrainingSetExportInput,
  type TrainingSetExportOptions,
  type TrainingSetFormat,
} from "./options";
export { exportSeeds, heldOutProblemCount, splitProblems } from "./split";
export { OPENRLHF_REWARD_PY, TRL_REWARD_PY, VERL_REWARD_PY } from "./reward-scripts";
export type { TrainingExtraInfo, TrainingRow } from "./rows";
