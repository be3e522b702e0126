-- Which server is behind an endpoint: "auto" (ask its model list), "vllm", "sglang" or "openai-compatible"
-- (@stepwiser/inference SERVER_KIND_SETTINGS). Where the server does not give each parallel sample its own
-- seed, the client sends one request per sample. Every endpoint stored so far is asked ("auto").
ALTER TABLE "Endpoint" ADD COLUMN "serverKind" TEXT NOT NULL DEFAULT 'auto';
