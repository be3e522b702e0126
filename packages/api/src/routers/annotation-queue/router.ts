import { createRouter } from "../../trpc";
import { adjudicate } from "./adjudicate";
import { agreement } from "./agreement";
import { assignment } from "./assignment";
import { createQueue } from "./create-queue";
import { exportLabels } from "./export";
import { itemHistory } from "./item-history";
import { listQueues } from "./list-queues";
import { addMembers, annotatorCandidates, removeMember } from "./members";
import { next } from "./next";
import { queue } from "./queue";
import { skip } from "./skip";
import { submit } from "./submit";
import { undo } from "./undo";
import { updateQueue } from "./update-queue";

/** Human audit of chunk labels: queues of solutions, leased to annotators, labelled, compared and adjudicated. */
export const annotationQueueRouter = createRouter({
  createQueue,
  updateQueue,
  addMembers,
  removeMember,
  annotatorCandidates,
  listQueues,
  queue,
  next,
  assignment,
  submit,
  undo,
  skip,
  agreement,
  itemHistory,
  adjudicate,
  exportLabels,
});
