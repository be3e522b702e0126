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
export { launchPlan, powerOfTwoAtMost, minimumTrainRows, GRPO_SAMPLES, TRAINER_GPUS, type LaunchPlan, type LaunchInput } from "./launch";
export { datasetCard, datasetCardHeader, sizeCategory, cardLicense, type CardFeature, type DatasetCardInput } from "./dataset-card";
export { cardFeatures } from "./export";
export { PRM_COLUMNS, PRM_STEP_SEPARATOR, type PrmRow, type PrmExtraInfo } from "./trl-prm";
