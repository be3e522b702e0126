"use client";

import { useRouter } from "next/navigation";
import { authClient } from "~/lib/auth-client";

export function SignOutButton() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="rounded border border-slate-300 px-2 py-1 text-slate-700 hover:bg-slate-100"
      onClick={async () => {
        await authClient.signOut();
        router.replace("/sign-in");
        router.refresh();
      }}
    >
      Sign out
    </button>
  );
}
