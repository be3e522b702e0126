import { createHash } from "node:crypto";
import { appRouter, authPool, createAuth, createUserWithPassword, type Auth, type SessionUser } from "@stepwiser/api";
import type { UserRole } from "@stepwiser/core";
import { createTestDatabase, type TestDatabase } from "@stepwiser/db/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { attachmentDisposition, uploadFileName } from "../src/lib/file-names";
import { connectJobQueue, runImport, submitImport } from "@stepwiser/jobs";
import { handleDownload, handleImportReportDownload, handleUpload } from "../src/server/file-routes";

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

/** Hostile names as a client may send them (after the URL's own decoding), and the base name each must be stored under. */
const HOSTILE_NAMES: Array<[string, string]> = [
  ["../../etc/passwd", "passwd"],
  ["/etc/passwd", "passwd"],
  ["C:\\Windows\\system32\\cmd.exe", "cmd.exe"],
  ["..\\..\\boot.ini", "boot.ini"],
  ["\\\\server\\share\\data.jsonl", "data.jsonl"],
  ["a\u0000b\nc.json", "abc.json"],
  ["%2e%2e%2f%2e%2e%2fetc%2fpasswd", "passwd"],
  ["..%2F..%2Fdata.jsonl", "data.jsonl"],
  ["%252e%252e%252fsecret.jsonl", "secret.jsonl"],
  ["..%5c..%5cwin.ini", "win.ini"],
  ["100%.jsonl", "100%.jsonl"],
  ["\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc\uff0fpasswd", "passwd"],
  ["..\u2215..\u2215shadow", "shadow"],
  ["..\u2044..\u2044hosts", "hosts"],
  ["report\u202egpj.exe", "reportgpj.exe"],
  ["zero\u200bwidth\ufeff.jsonl", "zerowidth.jsonl"],
  ["line\u2028break.json", "linebreak.json"],
  ["trailing.jsonl. . .", "trailing.jsonl"],
  ["  spaced name.json  ", "spaced name.json"],
  ["données été.jsonl", "données été.jsonl"],
];

/** A name is safe when nothing in it can name another directory, hide what it is, or break a header. */
function expectSafeBaseName(name: string) {
  expect(name).not.toMatch(/[\\/\u2044\u2215\uff0f\uff3c]/);
  // eslint-disable-next-line no-control-regex -- a safe name has no control characters: that is the check
  expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/);
  expect(name).not.toMatch(/^\.+$/);
  expect(Array.from(name).length).toBeLessThanOrEqual(200);
  expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(255);
}

describe("file names in uploads and downloads", () => {
  it("an upload keeps only the last path segment, and refuses names with nothing left", () => {
    expect(uploadFileName("../../etc/passwd")).toBe("passwd");
    expect(uploadFileName("C:\\Users\\me\\data.jsonl")).toBe("data.jsonl");
    expect(uploadFileName("a\u0000b\nc.json")).toBe("abc.json");
    for (const bad of [null, "", "  ", ".", "..", "...", "dir/", "/", "%2e%2e", "..%2f", "\u202e", "\u200b\u200b", ". ."]) expect(uploadFileName(bad), String(bad)).toBeNull();
    expect(Array.from(uploadFileName("x".repeat(500))!)).toHaveLength(200);
  });

  it("reduces traversal, encoded traversal, lookalike slashes and invisible characters to a safe base name", () => {
    for (const [raw, expected] of HOSTILE_NAMES) {
      const stored = uploadFileName(raw);
      expect(stored, JSON.stringify(raw)).toBe(expected);
      expectSafeBaseName(stored!);
    }
  });

  it("cuts very long names to 200 characters and 255 UTF-8 bytes, keeping the extension", () => {
    const long = uploadFileName(`${"x".repeat(500)}.jsonl`)!;
    expect(Array.from(long)).toHaveLength(200);
    expect(long.endsWith(".jsonl")).toBe(true);
    const accented = uploadFileName("é".repeat(300))!;
    expect(new TextEncoder().encode(accented).length).toBeLessThanOrEqual(255);
    const emoji = uploadFileName(`${"😀".repeat(100)}.json`)!;
    expect(emoji.endsWith(".json")).toBe(true);
    expect(new TextEncoder().encode(emoji).length).toBeLessThanOrEqual(255);
    expect(emoji).not.toMatch(/\uFFFD/);
  });

  it("a download names the file in a quoted ASCII form and exactly in filename*", () => {
    expect(attachmentDisposition("train.parquet")).toBe(`attachment; filename="train.parquet"; filename*=UTF-8''train.parquet`);
    expect(attachmentDisposition('a"b\\c ü.txt')).toBe(`attachment; filename="a_b_c _.txt"; filename*=UTF-8''a%22b%5Cc%20%C3%BC.txt`);
    expect(attachmentDisposition("x\r\nSet-Cookie: y")).not.toMatch(/[\r\n]/);
  });

  it("a download's Content-Disposition stays one header with one quoted ASCII name, whatever was stored", () => {
    for (const name of ['a"; filename="evil.html', "x\r\nSet-Cookie: y", "report\u202egpj.exe", "../../etc/passwd", "a\\b.json", "%0d%0a.json", "日本語.jsonl"]) {
      const header = attachmentDisposition(name);
      expect(() => new Headers({ "content-disposition": header }), JSON.stringify(name)).not.toThrow();
      const match = /^attachment; filename="([\x20-\x7e]*)"; filename\*=UTF-8''([A-Za-z0-9%._~!-]*)$/.exec(header);
      expect(match, header).not.toBeNull();
      expect(match![1]).not.toMatch(/["\\/]/);
      expect(decodeURIComponent(match![2]!)).toBe(name);
    }
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

    // A file whose writing has not finished (an export still running) is not served half-written.
    const unfinished = await database.db.storedFile.create({ data: { fileName: "labels.jsonl", purpose: "export", contentType: "application/jsonl" } });
    const early = await handleDownload(deps(), get(unfinished.id), unfinished.id);
    expect(early.status).toBe(409);
    expect(await early.text()).toMatch(/labels\.jsonl is still being written; try again when its run has finished/);
  });
  /** A body that counts what was read from it and whether it was cancelled; `pieces` of `pieceBytes` each. */
  function meteredBody(pieces: number, pieceBytes: number, fill = 0x61) {
    const meter = { pulled: 0, cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (meter.pulled >= pieces) return controller.close();
        meter.pulled++;
        controller.enqueue(new Uint8Array(pieceBytes).fill(fill));
      },
      cancel() {
        meter.cancelled = true;
      },
      // Nothing is pulled ahead: a piece is produced only when the handler reads one.
    }, { highWaterMark: 0 });
    return { stream, meter };
  }
  const storedCounts = async () => ({ files: await database.db.storedFile.count(), parts: await database.db.storedFilePart.count() });
  let refusedUploads = 0;
  const expectRefused = async (response: Response, status: number, message: RegExp, before: { files: number; parts: number }) => {
    expect(response.status).toBe(status);
    expect(await response.text()).toMatch(message);
    expect(await storedCounts()).toEqual(before);
    refusedUploads++;
  };

  it("a declared Content-Length over the limit (a 2 GB claim) is refused before a byte is read", async () => {
    const before = await storedCounts();
    const gib = 1024 ** 3;
    const { stream, meter } = meteredBody(1000, 1024);
    const response = await handleUpload(deps(), post("huge.jsonl", stream, "researcher", { "content-length": String(2 * gib) }), gib);
    await expectRefused(response, 413, /huge\.jsonl is larger than the upload limit of 1,073,741,824 bytes/, before);
    expect(meter.pulled).toBe(0);
    expect(meter.cancelled).toBe(true);
    // Past the real import limit (8 GiB), with nothing lowered.
    const beyond = meteredBody(1000, 1024);
    await expectRefused(await handleUpload(deps(), post("huger.jsonl", beyond.stream, "researcher", { "content-length": String(9 * gib) })), 413, /huger\.jsonl is larger than the upload limit of 8,589,934,592 bytes/, before);
    expect(beyond.meter.pulled).toBe(0);
    await expectRefused(await handleUpload(deps(), post("x.jsonl", "{}", "researcher", { "content-length": "-1" })), 400, /Content-Length "-1" is not a byte count/, before);
  });

  it("a body that passes the limit mid-stream is cancelled, and the parts already written are deleted with their file", async () => {
    const before = await storedCounts();
    const mib = 1024 * 1024;
    // Over one 4 MiB part is written before the limit (5 MiB) is crossed.
    const { stream, meter } = meteredBody(64, mib);
    const response = await handleUpload(deps(), post("stream.jsonl", stream), 5 * mib);
    await expectRefused(response, 413, /stream\.jsonl is larger than the upload limit of 5,242,880 bytes/, before);
    expect(meter.cancelled).toBe(true);
    expect(meter.pulled).toBeLessThanOrEqual(8);
  });

  it("refuses content that is not UTF-8 text, naming where, and keeps nothing of it", async () => {
    const before = await storedCounts();
    const withNul = streamOf(['{"a":1}\n', '{"b":"x\u0000y"}\n']);
    await expectRefused(await handleUpload(deps(), post("nul.jsonl", withNul)), 415, /nul\.jsonl is not a text file: byte 15 is a NUL byte/, before);
    const gzip = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
    await expectRefused(await handleUpload(deps(), post("data.jsonl.gz", new Blob([gzip]).stream())), 415, /data\.jsonl\.gz is not a text file/, before);
    const latin1 = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]);
    await expectRefused(await handleUpload(deps(), post("latin1.jsonl", new Blob([latin1]).stream())), 415, /latin1\.jsonl is not UTF-8 text: an invalid byte sequence in bytes 0–8/, before);
    const cutShort = new Uint8Array([0x22, 0xc3]);
    await expectRefused(await handleUpload(deps(), post("cut.jsonl", new Blob([cutShort]).stream())), 415, /cut\.jsonl is not UTF-8 text: it ends inside a multi-byte character/, before);
    await expectRefused(await handleUpload(deps(), post("empty.jsonl", "")), 400, /empty\.jsonl is empty/, before);

    // A multi-byte character split across two pieces of the stream is still text.
    const euro = new TextEncoder().encode('{"p":"€"}\n');
    const split = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(euro.slice(0, 7));
        controller.enqueue(euro.slice(7));
        controller.close();
      },
    });
    expect((await handleUpload(deps(), post("euro.jsonl", split))).status).toBe(201);
  });

  it("takes a Parquet file (binary, first bytes PAR1) as it is, even with its magic split across pieces; binary without it is still refused", async () => {
    const binary = new Uint8Array([0x50, 0x41, 0x52, 0x31, 0x15, 0x00, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x50, 0x41, 0x52, 0x31]);
    const pieces = [binary.slice(0, 2), binary.slice(2, 3), binary.slice(3, 9), binary.slice(9)];
    const split = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    const response = await handleUpload(deps(), post("train.parquet", split, "researcher", { "content-type": "application/vnd.apache.parquet" }));
    expect(response.status).toBe(201);
    const { fileId, sizeBytes, sha256 } = (await response.json()) as { fileId: string; sizeBytes: number; sha256: string };
    expect(sizeBytes).toBe(binary.length);
    expect(sha256).toBe(createHash("sha256").update(binary).digest("hex"));
    const download = await handleDownload(deps(), get(fileId), fileId);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(binary);

    const before = await storedCounts();
    const notMagic = new Uint8Array([0x50, 0x41, 0x52, 0x32, 0x00, 0x01]);
    await expectRefused(await handleUpload(deps(), post("fake.parquet", new Blob([notMagic]).stream())), 415, /fake\.parquet is not a text file: byte 4 is a NUL byte/, before);
    // Fewer than four bytes: not Parquet, so text rules apply.
    expect((await handleUpload(deps(), post("short.jsonl", "PA"))).status).toBe(201);
  });

  it("stores every hostile name as its safe base name, and serves it back with a safe Content-Disposition", async () => {
    for (const [raw, expected] of HOSTILE_NAMES) {
      const response = await handleUpload(deps(), post(raw, '{"ok":true}\n'));
      expect(response.status, JSON.stringify(raw)).toBe(201);
      const { fileId, fileName } = (await response.json()) as { fileId: string; fileName: string };
      expect(fileName).toBe(expected);
      expect((await database.db.storedFile.findUniqueOrThrow({ where: { id: fileId } })).fileName).toBe(expected);
      const download = await handleDownload(deps(), get(fileId), fileId);
      const disposition = download.headers.get("content-disposition")!;
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9%._~!-]*$/);
      expect(disposition).not.toMatch(/\.\.|\//);
      await download.body?.cancel();
    }
    const before = await storedCounts();
    for (const name of ["..", "%2e%2e%2f", "\u202e", "/"]) await expectRefused(await handleUpload(deps(), post(name, "{}")), 400, /fileName=NAME/, before);
  });

  it("GET /api/imports/{id}/report streams a skip import's report as JSON Lines to readers, and refuses the rest", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ q: `What is ${i}?`, s: [`${i}`] }));
    lines[3] = JSON.stringify({ q: "x", s: 4 });
    lines[22] = "{no";
    const uploaded = (await (await handleUpload(deps(), post("report-source.jsonl", lines.join("\n")))).json()) as { fileId: string };
    const queue = await connectJobQueue(database.url);
    let runId: string;
    try {
      runId = (await submitImport(database.db, queue, { fileId: uploaded.fileId, options: { format: "jsonl", mapping: { problem: "q", steps: "s" }, onInvalid: "skip", maxInvalidShare: 0.1 } })).id;
    } finally {
      await queue.stop({ graceful: false, wait: true });
    }
    await runImport(database.db, runId);
    const report = (role: UserRole | null, id = runId) => handleImportReportDownload(deps(), new Request(`${BASE_URL}/api/imports/${id}/report`, { headers: headers(role) }), id);

    const response = await report("viewer");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toContain(`filename="import-report-${runId}.jsonl"`);
    const entries = (await response.text()).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((e) => [e.file, e.line, e.record, e.field, e.kind])).toEqual([
      ["report-source.jsonl", 4, 3, "s", "invalid"],
      ["report-source.jsonl", 23, 22, null, "invalid"],
    ]);
    expect(Object.keys(entries[0]!).sort()).toEqual(["field", "file", "kind", "line", "reason", "record"]);

    expect((await report(null)).status).toBe(401);
    const unknown = await report("researcher", "no-such-run");
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toMatch(/import run no-such-run does not exist/);
    const other = await database.db.run.create({ data: { kind: "export", status: "completed", config: {} } });
    expect((await report("researcher", other.id)).status).toBe(404);
  });

  afterAll(() => {
    process.stderr.write(`uploads: ${refusedUploads} uploads refused with nothing stored; ${HOSTILE_NAMES.length} hostile names stored as safe base names\n`);
  });
});
