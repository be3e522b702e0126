import type { ReactNode } from "react";
import { requireUser } from "~/server/session";

/** Only those who manage queues create them; the form reads datasets and runs an annotator may not see. */
export default async function NewQueueLayout({ children }: { children: ReactNode }) {
  await requireUser("annotationQueues.manage");
  return children;
}
