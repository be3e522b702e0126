import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// packages/db/patches/@prisma__adapter-pg@7.10.1.patch teaches the adapter Postgres' `"char"` type
// (OID 18), which the wasm schema engine meets during schema inspection. The package ships two
// builds — dist/index.js (CommonJS) and dist/index.mjs (ESM) — and the patch must work in both.
// Each half is loaded in a child Node process the way its consumers load it, and the patched
// branch of fieldToColumnType is reached through queryRaw on a pool whose query() answers a
// one-column result of type "char" without any server.
const dbRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const body = (load: string) => `
${load}
const expected = utils.ColumnTypeEnum.Character;
if (expected === undefined) throw new Error("driver-adapter-utils has no ColumnTypeEnum.Character");
class FakePool extends pg.Pool {
  async query() { return { fields: [{ name: "relkind", dataTypeID: 18 }], rows: [["r"]] }; }
}
const pool = new FakePool();
const adapter = await new PrismaPg(pool).connect();
const result = await adapter.queryRaw({ sql: "select relkind from pg_class", args: [], argTypes: [] });
console.log(JSON.stringify({ columnTypes: result.columnTypes, expected }));
`;

const commonJs = body(`
const { createRequire } = require("node:module");
const requireFromDb = createRequire(${JSON.stringify(path.join(dbRoot, "package.json"))});
const adapterPath = requireFromDb.resolve("@prisma/adapter-pg");
if (!adapterPath.endsWith("index.js")) throw new Error("not the CommonJS build: " + adapterPath);
const { PrismaPg } = requireFromDb("@prisma/adapter-pg");
const requireFromAdapter = createRequire(adapterPath);
const pg = requireFromAdapter("pg");
const utils = requireFromAdapter("@prisma/driver-adapter-utils");
`);

const esm = body(`
import { createRequire } from "node:module";
const requireFromDb = createRequire(${JSON.stringify(path.join(dbRoot, "package.json"))});
const cjsPath = requireFromDb.resolve("@prisma/adapter-pg");
const { PrismaPg } = await import(cjsPath.replace(/index\\.js$/, "index.mjs"));
const requireFromAdapter = createRequire(cjsPath);
const pg = (await import(requireFromAdapter.resolve("pg"))).default;
const utils = requireFromAdapter("@prisma/driver-adapter-utils");
`);

function run(code: string, inputType: "commonjs" | "module") {
  // CommonJS has no top-level await: wrap the body in an async function there.
  const source = inputType === "commonjs" ? `(async () => {${code}})().catch((e) => { console.error(e); process.exit(1); });` : code;
  const output = execFileSync(process.execPath, [`--input-type=${inputType}`, "-e", source], {
    cwd: dbRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(output.trim().split("\n").at(-1)!) as { columnTypes: number[]; expected: number };
}

describe("patched @prisma/adapter-pg: Postgres \"char\" (OID 18) maps to Character", () => {
  it("in the CommonJS build (dist/index.js, require())", () => {
    const { columnTypes, expected } = run(commonJs, "commonjs");
    expect(columnTypes).toEqual([expected]);
  });

  it("in the ESM build (dist/index.mjs, import)", () => {
    const { columnTypes, expected } = run(esm, "module");
    expect(columnTypes).toEqual([expected]);
  });
});
