import type { Db } from "../client";

/** Row count of every table in the public schema, by table name. */
export type TableCounts = Record<string, number>;

export async function tableRowCounts(db: Db): Promise<TableCounts> {
  const tables = await db.$queryRawUnsafe<{ name: string }[]>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  if (tables.length === 0) return {};
  // One statement for every table: the snapshot is consistent and costs one round trip.
  const select = tables.map(({ name }) => `SELECT '${name.replaceAll("'", "''")}' AS name, count(*)::bigint AS rows FROM "${name.replaceAll('"', '""')}"`).join(" UNION ALL ");
  const rows = await db.$queryRawUnsafe<{ name: string; rows: bigint }[]>(select);
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.rows)]));
}

/** Tables whose row count differs between two snapshots, as "table: before → after". */
export function changedTables(before: TableCounts, after: TableCounts): string[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names.filter((name) => before[name] !== after[name]).map((name) => `${name}: ${before[name] ?? "absent"} → ${after[name] ?? "absent"}`);
}

/** What changed since a snapshot: the tables, as `changedTables` names them, and the rows added or removed over all of them. */
export async function rowChangesSince(db: Db, before: TableCounts): Promise<{ tables: string[]; rows: number }> {
  const after = await tableRowCounts(db);
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  const rows = [...names].reduce((sum, name) => sum + Math.abs((after[name] ?? 0) - (before[name] ?? 0)), 0);
  return { tables: changedTables(before, after), rows };
}
