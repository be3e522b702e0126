import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliInProcess } from "./in-process-cli";

const record = (uid: string, steps: string[]) => JSON.stringify({ uid, q: `What is ${uid}?`, s: steps });

describe("stepwiser import --duplicates replace [--delete-human-labels]", () => {
  let database: TestDatabase;
  let scratch: string;
  let replacing: string;
  let datasetId: string;
  const work = { queueId: "", itemId: "", assignmentId: "", labelIds: [] as string[] };
  const cli = (args: string[]) => runCliInProcess(args, { DATABASE_URL: database.url });
  const MAP = ["--map", "problem=q,steps=s,id=uid"];

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    scratch = await mkdtemp(path.join(tmpdir(), "stepwiser-cli-human-labels-"));
    const base = path.join(scratch, "base.jsonl");
    await writeFile(base, `${[record("a", ["a1", "a2"]), record("b", ["b1", "b2"])].join("\n")}\n`);
    replacing = path.join(scratch, "replacing.jsonl");
    await writeFile(replacing, `${[record("a", ["a1", "a2 fixed"]), record("b", ["b1", "b2 fixed"])].join("\n")}\n`);
    const imported = await cli(["import", "jsonl", base, ...MAP, "--name", "labelled"]);
    expect(imported.code, imported.stderr).toBe(0);
    datasetId = (JSON.parse(imported.stdout) as { runs: Array<{ datasetId: string }> }).runs[0]!.datasetId;

    // b is in a queue: one item, one submitted assignment, a label per chunk.
    const db = database.db;
    const annotator = await db.user.create({ data: { id: randomUUID(), name: "Ann", email: "ann@cli-guard.test", role: "annotator" } });
    const b = await db.solution.findUniqueOrThrow({
      where: { datasetId_externalId: { datasetId, externalId: "b" } },
      include: { segmentations: { include: { chunks: { orderBy: { index: "asc" } } } } },
    });
    const segmentation = b.segmentations[0]!;
    const queue = await db.annotationQueue.create({ data: { name: "cli-audit", datasetId, segmentationMethod: segmentation.method, selection: { kind: "test" } } });
    const item = await db.annotationItem.create({ data: { queueId: queue.id, solutionId: b.id, segmentationId: segmentation.id, position: 0 } });
    const assignment = await db.annotationAssignment.create({ data: { itemId: item.id, annotatorId: annotator.id, status: "submitted", expiresAt: new Date(), submittedAt: new Date() } });
    for (const chunk of segmentation.chunks) {
      const label = await db.humanLabel.create({ data: { chunkId: chunk.id, authorId: annotator.id, rating: 1, source: "annotation", queueId: queue.id, itemId: item.id, assignmentId: assignment.id } });
      work.labelIds.push(label.id);
    }
    Object.assign(work, { queueId: queue.id, itemId: item.id, assignmentId: assignment.id });
  });
  afterAll(async () => {
    await database?.drop();
    await rm(scratch, { recursive: true, force: true });
  });

  const stillThere = async () => ({
    labels: await database.db.humanLabel.count({ where: { id: { in: work.labelIds } } }),
    items: await database.db.annotationItem.count({ where: { id: work.itemId } }),
    assignments: await database.db.annotationAssignment.count({ where: { id: work.assignmentId } }),
  });
  const texts = async () => (await database.db.solution.findMany({ where: { datasetId }, orderBy: { externalId: "asc" }, select: { text: true } })).map((t) => t.text);

  it("without the flag the import fails naming the human work and where, and stores nothing", async () => {
    const before = await texts();
    const result = await cli(["import", "jsonl", replacing, ...MAP, "--dataset", datasetId, "--duplicates", "replace"]);
    expect(result.code).toBe(1);
    const run = (JSON.parse(result.stdout) as { runs: Array<{ status: string; error: string; replaced: number }> }).runs[0]!;
    expect(run.status).toBe("failed");
    expect(run.error).toBe(
      `replacing.jsonl: replacing 1 solution would delete 2 human labels, 1 annotation item and 1 assignment in queue "cli-audit" (id ${work.queueId}); ` +
        "pass --delete-human-labels (deleteHumanLabels: true in the API) to delete them",
    );
    expect(await stillThere()).toEqual({ labels: 2, items: 1, assignments: 1 });
    expect(await texts()).toEqual(before);
  });

  it("--delete-human-labels without --duplicates replace is a usage error", async () => {
    const runsBefore = await database.db.run.count();
    const result = await cli(["import", "jsonl", replacing, ...MAP, "--dataset", datasetId, "--delete-human-labels"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--delete-human-labels applies only with --duplicates replace");
    expect(await database.db.run.count()).toBe(runsBefore);
  });

  it("with --delete-human-labels the import replaces both solutions, deletes that work and audits its ids", async () => {
    const result = await cli(["import", "jsonl", replacing, ...MAP, "--dataset", datasetId, "--duplicates", "replace", "--delete-human-labels"]);
    expect(result.code, result.stderr).toBe(0);
    const run = (JSON.parse(result.stdout) as { runs: Array<{ runId: string; status: string; replaced: number }> }).runs[0]!;
    expect(run).toMatchObject({ status: "completed", replaced: 2 });
    expect(await texts()).toEqual(["a1\n\na2 fixed", "b1\n\nb2 fixed"]);
    expect(await stillThere()).toEqual({ labels: 0, items: 0, assignments: 0 });
    const audit = await database.db.auditLog.findFirstOrThrow({ where: { action: "human_work.deleted", entityId: datasetId } });
    expect(audit.before).toMatchObject({ labelIds: [...work.labelIds].sort(), itemIds: [work.itemId], assignmentIds: [work.assignmentId], adjudicationIds: [] });
    expect(audit.after).toEqual({ cause: "import.replace", runId: run.runId });
  });

  it("import --help lists the flag", async () => {
    const help = await cli(["import", "jsonl", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--delete-human-labels +replace only: delete the human labels/);
  });
});
