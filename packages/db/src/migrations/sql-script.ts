/**
 * The statements of a migration script, split at each `;` that ends a
 * statement: not one inside a quoted string ('…', E'…'), a quoted identifier
 * ("…"), a dollar-quoted body ($$…$$, $fn$…$fn$), a line comment (-- …) or a
 * block comment (/* … *\/, nested as Postgres nests them). Statements come
 * back trimmed, empty ones (only whitespace) left out; comments are kept.
 *
 * The Postgres driver adapter's own `executeScript` cuts at every `;`, which
 * breaks a function body in two; migrations that create trigger functions
 * need the body sent whole.
 */
export function splitSqlScript(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  const push = (end: number) => {
    const statement = script.slice(start, end).trim();
    if (statement.length > 0) statements.push(statement);
  };
  while (i < n) {
    const c = script[i]!;
    const next = script[i + 1];
    if (c === "-" && next === "-") {
      const end = script.indexOf("\n", i + 2);
      i = end === -1 ? n : end + 1;
    } else if (c === "/" && next === "*") {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        const pair = script.slice(i, i + 2);
        if (pair === "/*" || pair === "*/") {
          depth += pair === "/*" ? 1 : -1;
          i += 2;
        } else i += 1;
      }
      if (depth > 0) throw new Error(`unterminated block comment in the migration script`);
    } else if (c === "'" || c === '"') {
      // A doubled quote inside is an escaped quote; E'…' strings also take a backslash escape.
      const escapes = c === "'" && i > 0 && /[eE]/.test(script[i - 1]!) && !/[\w$]/.test(script[i - 2] ?? " ");
      i += 1;
      for (;;) {
        if (i >= n) throw new Error(`unterminated ${c === "'" ? "string" : "quoted identifier"} in the migration script`);
        if (escapes && script[i] === "\\") i += 2;
        else if (script[i] === c && script[i + 1] === c) i += 2;
        else if (script[i] === c) {
          i += 1;
          break;
        } else i += 1;
      }
    } else if (c === "$") {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(script.slice(i));
      // A $ inside an identifier or a positional parameter ($1) opens nothing.
      if (tag && !/[\w$]/.test(script[i - 1] ?? " ")) {
        const end = script.indexOf(tag[0], i + tag[0].length);
        if (end === -1) throw new Error(`unterminated dollar-quoted body ${tag[0]} in the migration script`);
        i = end + tag[0].length;
      } else i += 1;
    } else if (c === ";") {
      push(i);
      i += 1;
      start = i;
    } else i += 1;
  }
  push(n);
  return statements;
}
