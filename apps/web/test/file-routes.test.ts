import { createHash } from "node:crypto";
import { appRouter, authPool, createAuth, createUserWithPassword, type Auth, type SessionUser } from "@stepwiser/api";
import type { UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { attachmentDisposition, uploadFileName } from "../src/lib/file-names";
import { handleDownload, handleUpload } from "../src/server/file-routes";

const BASE_URL = "http://localhost:3995";

/** A body that arrives in pieces, as a browser upload does (no content-length known up front). */
function streamOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(encoder.encode(pieces[i++]!));
      else controller.close();
    },
  });
}

describe("file names in uploads and downloads", () => {
  it("an upload keeps only the last path segment, and refuses names with nothing left", () => {
    expect(uploadFileName("../../etc/passwd")).toBe("passwd");
    expect(uploadFileName("C:\\Users\\me\\data.jsonl")).toBe("data.jsonl");
    expect(uploadFileName("a\u0000b\nc.json")).toBe("abc.json");
    for (const bad of [null, "", "  ", ".", "..", "dir/", "/"]) expect(uploadFileName(bad)).toBeNull();
    expect(Array.from(uploadFileName("x".repeat(500))!)).toHaveLength(200);
  });

  it("a download names the file in a quoted ASCII form and exactly in filename*", () => {
    expect(attachmentDisposition("train.parquet")).toBe(`attachment; filename="train.parquet"; filename*=UTF-8''train.parquet`);
    expect(attachmentDisposition('a"b\\c ü.txt')).toBe(`attachment; filename="a_b_c _.txt"; filename*=UTF-8''a%22b%5Cc%20%C3%BC.txt`);
    expect(attachmentDisposition("x\r\nSet-Cookie: y")).not.toMatch(/[\r\n]/);
  });
});

describe("POST /api/uploads and GET /api/files/{id} (real Postgres, API tokens)", () => {
  let database: TestDatabase;
  let pool: ReturnType<typeof authPool>;
  let auth: Auth;
  const tokens = new Map<UserRole, string>();
  const users = new Map<UserRole, SessionUser>();

  beforeAll(async () => {
    database = await createTestDatabase(inject("postgresAdminUrl"));
    pool = authPool(database.url);
    auth = createAuth({ databaseUrl: database.url, baseUrl: BASE_URL, secret: "y".repeat(32) }, pool);
    for (const role of ["viewer", "researcher"] as const) {
      const user = await createUserWithPassword(database.db, { email: `${role}@files.test`, name: role, role, password: "long-enough-password" });
      const session: SessionUser = { id: user.id, email: `${role}@files.test`, name: role, role };
      users.set(role, session);
      const caller = appRouter.createCaller({ db: database.db, user: session, getQueue: async () => Promise.reject(new Error("no queue")) });
      tokens.set(role, (await caller.token.create({ name: "script" })).token);
    }
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  const deps = () => ({ db: database.db, auth });
  const headers = (role: UserRole | null, extra: Record<string, string> = {}) => (role ? { authorization: `Bearer ${tokens.get(role)}`, ...extra } : extra);
  const post = (fileName: string | null, body: ReadableStream<Uint8Array> | string, role: UserRole | null = "researcher", extra: Record<string, string> = {}) =>
    new Request(`${BASE_URL}/api/uploads${fileName === null ? "" : `?fileName=${encodeURIComponent(fileName)}`}`, {
      method: "POST",
      headers: headers(role, extra),
      body,
      duplex: "half",
    } as RequestInit);
  const get = (id: string, role: UserRole | null = "researcher") => new Request(`${BASE_URL}/api/files/${id}`, { headers: headers(role) });

  it("stores a streamed body under its base name and serves it back as an attachment", async () => {
    const pieces = ['{"a":1}\n', '{"a":2}\n', '{"a":3, "text": "ünïcode"}\n'];
    const content = pieces.join("");
    const response = await handleUpload(deps(), post("../../secret/dir/data set.jsonl", streamOf(pieces), "researcher", { "content-type": "application/x-ndjson" }));
    expect(response.status).toBe(201);
    const body = (await response.json()) as { fileId: string; fileName: string; sizeBytes: number; sha256: string };
    expect(body.fileName).toBe("data set.jsonl");
    expect(body.sizeBytes).toBe(Buffer.byteLength(content));
    expect(body.sha256).toBe(createHash("sha256").update(content).digest("hex"));
    const stored = await database.db.storedFile.findUniqueOrThrow({ where: { id: body.fileId } });
    expect(stored).toMatchObject({ purpose: "upload", createdById: users.get("researcher")!.id, contentType: "application/x-ndjson" });

    const download = await handleDownload(deps(), get(body.fileId), body.fileId);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="data set.jsonl"; filename*=UTF-8''data%20set.jsonl`);
    expect(download.headers.get("content-type")).toBe("application/x-ndjson");
    expect(download.headers.get("content-length")).toBe(String(body.sizeBytes));
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await download.text()).toBe(content);
  });

  it("refuses a file over the limit with 413 and keeps nothing of it", async () => {
    const before = await database.db.storedFile.count();
    const streamed = await handleUpload(deps(), post("big.jsonl", streamOf(["0123456789", "0123456789", "0123456789"])), 15);
    expect(streamed.status).toBe(413);
    expect(await streamed.text()).toMatch(/big\.jsonl is larger than the upload limit of 15 bytes/);
    const declared = await handleUpload(deps(), post("big.jsonl", "x".repeat(40), "researcher", { "content-length": "40" }), 15);
    expect(declared.status).toBe(413);
    expect(await database.db.storedFile.count()).toBe(before);
  });

  it("needs a usable file name", async () => {
    for (const name of [null, "..", "a/"]) {
      const response = await handleUpload(deps(), post(name, "{}"));
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/fileName=NAME/);
    }
  });

  it("answers 401 without credentials or with a bad token, 403 below researcher, 404 for an unknown file", async () => {
    const uploaded = (await (await handleUpload(deps(), post("ok.json", "[]"))).json()) as { fileId: string };
    expect((await handleUpload(deps(), post("x.json", "[]", null))).status).toBe(401);
    expect((await handleDownload(deps(), get(uploaded.fileId, null), uploaded.fileId)).status).toBe(401);
    const forged = new Request(`${BASE_URL}/api/files/${uploaded.fileId}`, { headers: { authorization: "Bearer sw_not-a-token" } });
    expect((await handleDownload(deps(), forged, uploaded.fileId)).status).toBe(401);

    const asViewer = await handleUpload(deps(), post("x.json", "[]", "viewer"));
    expect(asViewer.status).toBe(403);
    expect(await asViewer.text()).toMatch(/needs the research.manage capability \(roles: researcher, admin\); you are viewer/);
    expect((await handleDownload(deps(), get(uploaded.fileId, "viewer"), uploaded.fileId)).status).toBe(403);

    const missing = await handleDownload(deps(), get("no-such-file"), "no-such-file");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(/file no-such-file does not exist/);
  });
});
