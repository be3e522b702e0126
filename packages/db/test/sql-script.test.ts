import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { splitSqlScript } from "../src/migrations/sql-script";

const migrations = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../prisma/migrations");

describe("splitSqlScript", () => {
  it("splits at statement ends and leaves empty statements out", () => {
    expect(splitSqlScript("CREATE TABLE a (x int);\n\n;ALTER TABLE a ADD y int;  \n")).toEqual(["CREATE TABLE a (x int)", "ALTER TABLE a ADD y int"]);
  });

  it("keeps a function body's semicolons inside its statement", () => {
    const fn = `CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO t VALUES (1);
  RETURN NULL;
END $body$`;
    expect(splitSqlScript(`${fn};\nCREATE TRIGGER g AFTER INSERT ON t FOR EACH STATEMENT EXECUTE FUNCTION f();`)).toEqual([
      fn,
      "CREATE TRIGGER g AFTER INSERT ON t FOR EACH STATEMENT EXECUTE FUNCTION f()",
    ]);
    expect(splitSqlScript("SELECT $$a;b$$; SELECT 2")).toEqual(["SELECT $$a;b$$", "SELECT 2"]);
  });

  it("does not split inside strings, quoted identifiers or comments", () => {
    expect(splitSqlScript(`SELECT 'a;''b'; SELECT "c;""d"; SELECT E'x\\';y'`)).toEqual([`SELECT 'a;''b'`, `SELECT "c;""d"`, `SELECT E'x\\';y'`]);
    expect(splitSqlScript("-- it's one; still a comment\nSELECT 1; /* a /* nested; */ one; */ SELECT 2")).toEqual([
      "-- it's one; still a comment\nSELECT 1",
      "/* a /* nested; */ one; */ SELECT 2",
    ]);
  });

  it("reads $ in identifiers and parameters as plain characters", () => {
    expect(splitSqlScript("SELECT a$b, $1 FROM t; SELECT 2")).toEqual(["SELECT a$b, $1 FROM t", "SELECT 2"]);
  });

  it("names an unterminated quote, body or comment", () => {
    expect(() => splitSqlScript("SELECT 'a;")).toThrow(/unterminated string/);
    expect(() => splitSqlScript("SELECT $x$ a;")).toThrow(/unterminated dollar-quoted body \$x\$/);
    expect(() => splitSqlScript("/* a; ")).toThrow(/unterminated block comment/);
  });

  it("gives every shipped migration without a function body the statements a plain split at ';' gives, comments aside", () => {
    // A plain split also cuts comments that hold a semicolon; only the SQL around them must agree.
    const code = (statements: string[]) => statements.map((s) => s.split("\n").filter((line) => !line.trim().startsWith("--")).join("\n").trim()).filter((s) => s.length > 0);
    for (const dir of readdirSync(migrations).filter((d) => !d.endsWith(".toml"))) {
      const script = readFileSync(path.join(migrations, dir, "migration.sql"), "utf8");
      if (script.includes("$$") || /\$\w+\$/.test(script)) continue;
      expect(code(splitSqlScript(script)), dir).toEqual(code(script.split(";")));
    }
  });
});
