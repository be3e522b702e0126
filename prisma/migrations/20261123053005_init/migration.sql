-- CreateEnum
CREATE TYPE "Role" AS ENUM ('viewer', 'annotator', 'researcher', 'admin');

-- CreateEnum
CREATE TYPE "DatasetStatus" AS ENUM ('importing', 'ready', 'failed');

-- CreateEnum
CREATE TYPE "EndpointRole" AS ENUM ('policy', 'judge', 'segmenter');

-- CreateEnum
CREATE TYPE "RunKind" AS ENUM ('import', 'generate', 'segment', 'annotate', 'judge', 'benchmark', 'chunk_reset', 'best_of_n');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('queued', 'running', 'completed', 'completed_with_failures', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "LabelRule" AS ENUM ('abs_q', 'rel_ratio', 'rel_effective');

-- CreateEnum
CREATE TYPE "StepLabel" AS ENUM ('Positive', 'Negative');

-- CreateEnum
CREATE TYPE "Verdict" AS ENUM ('Positive', 'Negative', 'unparseable');

-- CreateTable
CREATE TABLE "user" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "image" TEXT,
    "role" "Role" NOT NULL DEFAULT 'viewer',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "id" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "token" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "ipAddress" TEXT,
    "userAgent" TEXT,
    "userId" TEXT NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "accessToken" TEXT,
    "refreshToken" TEXT,
    "idToken" TEXT,
    "accessTokenExpiresAt" TIMESTAMP(3),
    "refreshTokenExpiresAt" TIMESTAMP(3),
    "scope" TEXT,
    "password" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "verification" (
    "id" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "verification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditLog" (
    "id" BIGSERIAL NOT NULL,
    "actorId" TEXT,
    "action" TEXT NOT NULL,
    "entityType" TEXT NOT NULL,
    "entityId" TEXT NOT NULL,
    "before" JSONB,
    "after" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditLog_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Dataset" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "license" TEXT,
    "version" TEXT,
    "description" TEXT,
    "status" "DatasetStatus" NOT NULL DEFAULT 'importing',
    "importRunId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Dataset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportFile" (
    "id" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "sizeBytes" INTEGER NOT NULL,
    "content" BYTEA NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Problem" (
    "id" TEXT NOT NULL,
    "datasetId" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "referenceAnswer" TEXT,

    CONSTRAINT "Problem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Trajectory" (
    "id" TEXT NOT NULL,
    "datasetId" TEXT NOT NULL,
    "problemId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "subset" TEXT,
    "generator" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "finalAnswer" TEXT,
    "finalAnswerCorrect" BOOLEAN,
    "sourceFirstErrorIndex" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Trajectory_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Segmentation" (
    "id" TEXT NOT NULL,
    "trajectoryId" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "runId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Segmentation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Chunk" (
    "id" TEXT NOT NULL,
    "segmentationId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "startOffset" INTEGER NOT NULL,
    "endOffset" INTEGER NOT NULL,

    CONSTRAINT "Chunk_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Endpoint" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "baseUrl" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "role" "EndpointRole" NOT NULL,
    "maxConcurrency" INTEGER NOT NULL DEFAULT 64,
    "apiKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Endpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "kind" "RunKind" NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'queued',
    "config" JSONB NOT NULL,
    "datasetId" TEXT,
    "importFileId" TEXT,
    "createdById" TEXT,
    "unitsTotal" INTEGER NOT NULL DEFAULT 0,
    "unitsDone" INTEGER NOT NULL DEFAULT 0,
    "unitsFailed" INTEGER NOT NULL DEFAULT 0,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" BIGINT NOT NULL DEFAULT 0,
    "completionTokens" BIGINT NOT NULL DEFAULT 0,
    "cachedTokens" BIGINT NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Rollout" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "segmentationId" TEXT NOT NULL,
    "prefixLength" INTEGER NOT NULL,
    "sampleIndex" INTEGER NOT NULL,
    "seed" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "extractedAnswer" TEXT,
    "correct" BOOLEAN NOT NULL,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChunkValue" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "segmentationId" TEXT NOT NULL,
    "prefixLength" INTEGER NOT NULL,
    "qValue" DOUBLE PRECISION NOT NULL,
    "rolloutCount" INTEGER NOT NULL,
    "correctCount" INTEGER NOT NULL,

    CONSTRAINT "ChunkValue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChunkLabel" (
    "id" TEXT NOT NULL,
    "chunkId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "rule" "LabelRule" NOT NULL,
    "paramsKey" TEXT NOT NULL,
    "label" "StepLabel" NOT NULL,

    CONSTRAINT "ChunkLabel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JudgeSample" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "chunkId" TEXT NOT NULL,
    "sampleIndex" INTEGER NOT NULL,
    "promptTemplateId" TEXT NOT NULL,
    "rationale" TEXT NOT NULL,
    "verdict" "Verdict" NOT NULL,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "JudgeSample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HumanLabel" (
    "id" TEXT NOT NULL,
    "chunkId" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "rating" INTEGER,
    "flagged" BOOLEAN NOT NULL DEFAULT false,
    "note" TEXT,
    "source" TEXT NOT NULL DEFAULT 'manual',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "HumanLabel_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_key" ON "session"("token");

-- CreateIndex
CREATE INDEX "session_userId_idx" ON "session"("userId");

-- CreateIndex
CREATE INDEX "account_userId_idx" ON "account"("userId");

-- CreateIndex
CREATE INDEX "verification_identifier_idx" ON "verification"("identifier");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");

-- CreateIndex
CREATE INDEX "AuditLog_entityType_entityId_idx" ON "AuditLog"("entityType", "entityId");

-- CreateIndex
CREATE INDEX "AuditLog_createdAt_idx" ON "AuditLog"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Dataset_importRunId_key" ON "Dataset"("importRunId");

-- CreateIndex
CREATE INDEX "Dataset_status_createdAt_idx" ON "Dataset"("status", "createdAt");

-- CreateIndex
CREATE INDEX "ImportFile_sha256_idx" ON "ImportFile"("sha256");

-- CreateIndex
CREATE UNIQUE INDEX "Problem_datasetId_textHash_key" ON "Problem"("datasetId", "textHash");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_subset_generator_idx" ON "Trajectory"("datasetId", "subset", "generator");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_sourceFirstErrorIndex_idx" ON "Trajectory"("datasetId", "sourceFirstErrorIndex");

-- CreateIndex
CREATE INDEX "Trajectory_datasetId_generator_idx" ON "Trajectory"("datasetId", "generator");

-- CreateIndex
CREATE UNIQUE INDEX "Trajectory_datasetId_externalId_key" ON "Trajectory"("datasetId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "Segmentation_trajectoryId_method_key" ON "Segmentation"("trajectoryId", "method");

-- CreateIndex
CREATE UNIQUE INDEX "Chunk_segmentationId_index_key" ON "Chunk"("segmentationId", "index");

-- CreateIndex
CREATE UNIQUE INDEX "Endpoint_name_key" ON "Endpoint"("name");

-- CreateIndex
CREATE INDEX "Run_kind_createdAt_idx" ON "Run"("kind", "createdAt");

-- CreateIndex
CREATE INDEX "Run_status_idx" ON "Run"("status");

-- CreateIndex
CREATE INDEX "Run_datasetId_createdAt_idx" ON "Run"("datasetId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Rollout_runId_segmentationId_prefixLength_sampleIndex_key" ON "Rollout"("runId", "segmentationId", "prefixLength", "sampleIndex");

-- CreateIndex
CREATE UNIQUE INDEX "ChunkValue_runId_segmentationId_prefixLength_key" ON "ChunkValue"("runId", "segmentationId", "prefixLength");

-- CreateIndex
CREATE INDEX "ChunkLabel_runId_rule_paramsKey_idx" ON "ChunkLabel"("runId", "rule", "paramsKey");

-- CreateIndex
CREATE UNIQUE INDEX "ChunkLabel_chunkId_runId_rule_paramsKey_key" ON "ChunkLabel"("chunkId", "runId", "rule", "paramsKey");

-- CreateIndex
CREATE INDEX "JudgeSample_chunkId_idx" ON "JudgeSample"("chunkId");

-- CreateIndex
CREATE UNIQUE INDEX "JudgeSample_runId_chunkId_sampleIndex_key" ON "JudgeSample"("runId", "chunkId", "sampleIndex");

-- CreateIndex
CREATE INDEX "HumanLabel_chunkId_createdAt_idx" ON "HumanLabel"("chunkId", "createdAt");

-- CreateIndex
CREATE INDEX "HumanLabel_authorId_createdAt_idx" ON "HumanLabel"("authorId", "createdAt");

-- AddForeignKey
ALTER TABLE "session" ADD CONSTRAINT "session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account" ADD CONSTRAINT "account_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AuditLog" ADD CONSTRAINT "AuditLog_actorId_fkey" FOREIGN KEY ("actorId") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Dataset" ADD CONSTRAINT "Dataset_importRunId_fkey" FOREIGN KEY ("importRunId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImportFile" ADD CONSTRAINT "ImportFile_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Problem" ADD CONSTRAINT "Problem_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trajectory" ADD CONSTRAINT "Trajectory_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Trajectory" ADD CONSTRAINT "Trajectory_problemId_fkey" FOREIGN KEY ("problemId") REFERENCES "Problem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Segmentation" ADD CONSTRAINT "Segmentation_trajectoryId_fkey" FOREIGN KEY ("trajectoryId") REFERENCES "Trajectory"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Segmentation" ADD CONSTRAINT "Segmentation_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Chunk" ADD CONSTRAINT "Chunk_segmentationId_fkey" FOREIGN KEY ("segmentationId") REFERENCES "Segmentation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_importFileId_fkey" FOREIGN KEY ("importFileId") REFERENCES "ImportFile"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "user"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Rollout" ADD CONSTRAINT "Rollout_segmentationId_fkey" FOREIGN KEY ("segmentationId") REFERENCES "Segmentation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChunkValue" ADD CONSTRAINT "ChunkValue_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChunkValue" ADD CONSTRAINT "ChunkValue_segmentationId_fkey" FOREIGN KEY ("segmentationId") REFERENCES "Segmentation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChunkLabel" ADD CONSTRAINT "ChunkLabel_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "Chunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChunkLabel" ADD CONSTRAINT "ChunkLabel_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JudgeSample" ADD CONSTRAINT "JudgeSample_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JudgeSample" ADD CONSTRAINT "JudgeSample_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "Chunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "Chunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HumanLabel" ADD CONSTRAINT "HumanLabel_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "user"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
