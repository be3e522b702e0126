import { can } from "@stepwiser/core";
import type { ServiceArgs } from "../args";
import { queueAgreement } from "./agreement";
import { assertQueueMember } from "./membership";
import { queueDashboard } from "./queue";

/**
 * One queue as a script reads it: its dashboard (settings, progress, each
 * annotator's counts) and its inter-annotator agreement. The caller must be
 * able to see the queue (a member, unless their role sees every queue; others
 * get the not-found answer). Agreement is research data: it is null for a
 * caller without research.read (an annotator), as the dashboard page shows it.
 */
export async function queueReadout({ db, user, input }: ServiceArgs<{ queueId: string }>) {
  await assertQueueMember(db, user, { queueId: input.queueId });
  const dashboard = await queueDashboard({ db, user, input });
  const agreement = can(user.role, "research.read") ? await queueAgreement({ db, user, input }) : null;
  return { ...dashboard, agreement };
}
