import { ApiTokens } from "./api-tokens";

export default function ApiTokensPage() {
  return (
    <div className="max-w-4xl space-y-6">
      <div className="space-y-1">
        <h1 className="text-xl font-semibold">API tokens</h1>
        <p className="text-sm text-slate-600">
          Scripts send a token as <code className="rounded bg-slate-100 px-1">Authorization: Bearer sw_…</code> to <code className="rounded bg-slate-100 px-1">/api/trpc</code> and
          act as you, with the role you hold at the time of each request. A token expires after the days you choose (at most 365); a read token can only read
          (queries, GET operations and downloads). Tokens are made here, from your signed-in session, never with another token. Revoke a token you no longer use
          or may have leaked.
        </p>
      </div>
      <ApiTokens />
    </div>
  );
}
