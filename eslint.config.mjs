// @ts-check
// One ESLint (flat config) for the whole monorepo: `corepack pnpm lint` from the root.
// typescript-eslint's recommended rules everywhere, with two type-aware rules that catch
// lost promises (no-floating-promises, no-misused-promises; type information from each
// package's tsconfig through the project service), React's hook rules and Next's rules
// in the web app.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import { defineConfig, globalIgnores } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig([
  globalIgnores([
    "**/node_modules/",
    "**/dist/",
    "**/.tsbuild/",
    ".cache/",
    "**/.next/",
    "**/.turbo/",
    "**/coverage/",
    ".data/",
    // Generated: the Prisma client, Next's route types, Playwright's reports.
    "packages/db/src/generated/",
    "apps/web/next-env.d.ts",
    "e2e/test-results/",
    "e2e/playwright-report/",
    // Vendored data and test fixtures, kept exactly as their sources publish them.
    "packages/db/seed/",
    "packages/core/test/fixtures/",
  ]),
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: globals.node,
    },
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks an argument, binding or caught error that is deliberately unused.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          args: "after-used",
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrors: "all",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // Type-aware rules where a promise can be lost: a queue and worker codebase must not drop one unawaited.
    files: ["**/*.{ts,tsx,mts,cts}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  {
    files: ["apps/web/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { "react-hooks": reactHooks, "@next/next": nextPlugin },
    settings: { next: { rootDir: "apps/web/" } },
    rules: {
      ...nextPlugin.configs["core-web-vitals"].rules,
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
]);
