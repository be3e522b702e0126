import Link from "next/link";
import type { ReactNode } from "react";
import { SessionProvider } from "~/lib/session-context";
import { can } from "@stepwiser/core";
import { homePath, requireUser } from "~/server/session";
import { SignOutButton } from "./sign-out-button";

export const dynamic = "force-dynamic";

export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <SessionProvider user={user}>
      <header className="border-b border-slate-200 bg-white">
        <nav className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 text-sm sm:px-6">
          <Link href={homePath(user)} className="font-semibold">
            StepWiser Studio
          </Link>
          {/* Each role sees only what it can use: an annotator's studio is their queues. */}
          {can(user.role, "research.read") && (
            <Link href="/datasets" className="text-slate-700 hover:text-slate-950">
              Datasets
            </Link>
          )}
          <Link href="/annotation-queues" className="text-slate-700 hover:text-slate-950" data-testid="nav-queues">
            Queues
          </Link>
          {can(user.role, "research.read") && (
            <>
              <Link href="/endpoints" className="text-slate-700 hover:text-slate-950">
                Endpoints
              </Link>
              <Link href="/compare" className="text-slate-700 hover:text-slate-950" data-testid="nav-compare">
                Compare
              </Link>
              <Link href="/exports" className="text-slate-700 hover:text-slate-950" data-testid="nav-exports">
                Exports
              </Link>
            </>
          )}
          {can(user.role, "users.manage") && (
            <Link href="/admin/users" className="text-slate-700 hover:text-slate-950">
              Users
            </Link>
          )}
          <span className="ml-auto text-slate-600">
            <span className="hidden sm:inline">{user.email} · </span>
            <span className="font-medium">{user.role}</span>
          </span>
          <Link href="/settings/tokens" className="text-slate-700 hover:text-slate-950">
            API tokens
          </Link>
          <SignOutButton />
        </nav>
      </header>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">{children}</main>
    </SessionProvider>
  );
}
