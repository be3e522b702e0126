import path from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const config: NextConfig = {
  // Workspace packages ship TypeScript source; Next compiles them with the app.
  transpilePackages: ["@stepwiser/api", "@stepwiser/core", "@stepwiser/db", "@stepwiser/jobs", "@stepwiser/inference"],
  // Database drivers, the queue, the parquet writer (which loads its .wasm file beside it) and the TypeScript
  // loader the answer-grading threads register (with its native esbuild) stay plain Node modules loaded at run time.
  serverExternalPackages: ["pg", "pg-boss", "@prisma/adapter-pg", "@prisma/client", "better-auth", "parquet-wasm", "tsx", "esbuild"],
  turbopack: { root: repoRoot },
  outputFileTracingRoot: repoRoot,
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { ignoreBuildErrors: true }, // type checking is its own stage (`turbo run typecheck`)
  // Annotation queues lived under /queues: old links and label-export scripts keep working.
  redirects: async () => [
    { source: "/queues", destination: "/annotation-queues", permanent: true },
    { source: "/queues/:path*", destination: "/annotation-queues/:path*", permanent: true },
    { source: "/api/queues/:path*", destination: "/api/annotation-queues/:path*", permanent: true },
    // A solution's page was /trajectories/[id] before the concept had one name.
    { source: "/trajectories/:path*", destination: "/solutions/:path*", permanent: true },
    // Browsers that look for an icon without reading the page's <link rel="icon"> find the app's one.
    { source: "/favicon.ico", destination: "/icon.svg", permanent: false },
  ],
};

export default config;
