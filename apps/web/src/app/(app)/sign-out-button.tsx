"use client";

import { useRouter } from "next/navigation";
import { Button } from "~/components/ui";
import { authClient } from "~/lib/auth-client";

export function SignOutButton() {
  const router = useRouter();
  return (
    <Button
      size="sm"
      onClick={() =>
        void authClient.signOut().then(() => {
          router.replace("/sign-in");
          router.refresh();
        })
      }
    >
      Sign out
    </Button>
  );
}
