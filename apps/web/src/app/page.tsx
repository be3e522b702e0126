import { redirect } from "next/navigation";
import { currentUser, homePath } from "~/server/session";

export const dynamic = "force-dynamic";

export default async function Home() {
  const user = await currentUser();
  redirect(user ? homePath(user) : "/sign-in");
}
