import type { ReactNode } from "react";
import { requireUser } from "~/server/session";

export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requireUser("users.manage");
  return children;
}
