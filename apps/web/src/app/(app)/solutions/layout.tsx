import type { ReactNode } from "react";
import { requireUser } from "~/server/session";

/** Research data: annotators, who work only their queues, are sent back to them. */
export default async function SolutionsLayout({ children }: { children: ReactNode }) {
  await requireUser("research.read");
  return children;
}
