import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TrpcReactProvider } from "~/trpc/react";
import "./globals.css";

export const metadata: Metadata = {
  title: "StepWiser Studio",
  description: "Inspect chunked chains of thought, Q-values and stepwise judge verdicts.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <TrpcReactProvider>{children}</TrpcReactProvider>
      </body>
    </html>
  );
}
