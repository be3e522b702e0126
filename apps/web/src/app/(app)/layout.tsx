import Link from "next/link";
import type { ReactNode } from "react";
import { ThemeToggle } from "~/components/ui/theme-toggle";
import { Truncate } from "~/components/ui/truncate";
import { SessionProvider } from "~/lib/session-context";
import { can, type Capability } from "@stepwiser/core";
import { homePath, requireUser } from "~/server/session";
import { SignOutButton } from "./sign-out-button";

export const dynamic = "force-dynamic";

const NAV: Array<{ href: string; label: string; needs?: Capability; testId?: string }> = [
  { href: "/datasets", label: "Datasets", needs: "research.read" },
  { href: "/runs", label: "Runs", needs: "research.read", testId: "nav-runs" },
  { href: "/annotation-queues", label: "Queues", testId: "nav-queues" },
  { href: "/endpoints", label: "Endpoints", needs: "research.read" },
  { href: "/compare", label: "Compare", needs: "research.read", testId: "nav-compare" },
  { href: "/exports", label: "Exports", needs: "research.read", testId: "nav-exports" },
  { href: "/admin/users", label: "Users", needs: "users.manage" },
  { href: "/admin/audit", label: "Audit log", needs: "users.manage", testId: "nav-audit" },
];

export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <SessionProvider user={user}>
      <header className="border-b border-slate-200 bg-white">
        {/* One row from 1280 px on: nothing wraps, and only the email gives way (shortened, whole in its tooltip). */}
        <nav className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 text-sm whitespace-nowrap sm:px-6 xl:flex-nowrap">
          <Link href={homePath(user)} className="font-semibold">
            StepWiser Studio
          </Link>
          {/* Each role sees only what it can use: an annotator's studio is their queues. */}
          {NAV.filter((item) => !item.needs || can(user.role, item.needs)).map((item) => (
            <Link key={item.href} href={item.href} className="text-slate-700 hover:text-slate-950" data-testid={item.testId}>
              {item.label}
            </Link>
          ))}
          <span className="ml-auto flex min-w-0 text-slate-600" data-testid="header-user">
            <span className="hidden min-w-0 sm:flex">
              <Truncate text={user.email} />
              &nbsp;·&nbsp;
            </span>
            <span className="font-medium">{user.role}</span>
          </span>
          <Link href="/settings/tokens" className="text-slate-700 hover:text-slate-950">
            API tokens
          </Link>
          <ThemeToggle />
          <SignOutButton />
        </nav>
      </header>
      <main className="mx-auto max-w-7xl px-4 py-6 sm:px-6">{children}</main>
    </SessionProvider>
  );
}
