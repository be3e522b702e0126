import { redirect } from "next/navigation";
import { Card } from "~/components/ui/card";
import { ThemeToggle } from "~/components/ui/theme-toggle";
import { currentUser, homePath } from "~/server/session";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";

export default async function SignInPage() {
  const user = await currentUser();
  if (user) redirect(homePath(user));
  return (
    <main className="relative flex min-h-screen items-center justify-center p-6">
      <ThemeToggle labels className="absolute top-3 right-4" />
      <Card padding="none" className="w-full max-w-sm p-6">
        <h1 className="text-lg font-semibold">StepWiser Studio</h1>
        <p className="mb-5 text-sm text-slate-600">Sign in with the account an admin gave you.</p>
        <SignInForm />
      </Card>
    </main>
  );
}
