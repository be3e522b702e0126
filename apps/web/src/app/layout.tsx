import type { Metadata } from "next";
import type { ReactNode } from "react";
import { THEME_BOOT_SCRIPT } from "~/lib/theme";
import { TrpcReactProvider } from "~/trpc/react";
import "./globals.css";

export const metadata: Metadata = {
  title: "StepWiser Studio",
  description: "Inspect chunked chains of thought, Q-values and stepwise judge verdicts.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The boot script sets `dark` on <html> before the first paint, so the server's markup and the DOM differ there on purpose.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* A constant of this app, not data: the one inline script, run before the body so no page flashes the wrong theme. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <TrpcReactProvider>{children}</TrpcReactProvider>
      </body>
    </html>
  );
}
