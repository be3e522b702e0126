/** The annotation-queue services a host outside the API calls directly (the launcher's demo queue). */
export { createAnnotationQueue, type NewQueue } from "./create-queue";
export { claimNextItem } from "./next";
export { submitAssignment, type SubmitInput } from "./submit";
export { defaultLabelRule, type QueueLabelRule } from "./queue-runs";
export type { AssignmentView } from "./assignment-view";
