import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { splitSqlScript } from "./sql-script";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";
import pg from "pg";

/**
 * Prisma's schema engine compiled to WebAssembly, driven directly.
 *
 * The Prisma CLI's `migrate` commands need a native engine binary that is
 * downloaded at install time; the wasm build ships inside an npm package and
 * writes the same `_prisma_migrations` rows, so a `prisma migrate deploy`
 * elsewhere accepts databases migrated here.
 */

type WasmExports = Record<string, unknown>;
type WasmBindings = {
  __wbg_set_wasm(exports: WasmExports): void;
  SchemaEngine: typeof SchemaEngine;
};
// Node's WebAssembly global, typed minimally so this package needs no DOM typings.
const webAssembly = (globalThis as unknown as {
  WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: WasmExports } }> };
}).WebAssembly;

let bindingsPromise: Promise<WasmBindings> | undefined;

async function loadBindings(): Promise<WasmBindings> {
  const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
  g.PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      lastPanic = message;
    },
  };
  // Node 20 cannot import the package's `.wasm` module directly: instantiate it by hand.
  // (createRequire rather than import.meta.resolve: the latter is missing under test runners' module loaders.)
  const bindingsPath = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const bindings = (await import(pathToFileURL(bindingsPath).href)) as WasmBindings;
  const wasmPath = path.join(path.dirname(bindingsPath), "schema_engine_bg.wasm");
  const { instance } = await webAssembly.instantiate(await readFile(wasmPath), {
    "./schema_engine_bg.js": bindings,
  });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return bindings;
}

let lastPanic: string | undefined;

export function takeEnginePanic(): string | undefined {
  const message = lastPanic;
  lastPanic = undefined;
  return message;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

type ScriptRunner = { executeScript(script: string): Promise<void> };
/** What the adapter keeps inside: its pool and its error mapping (the same calls its own executeScript makes). */
type AdapterInternals = { client: { query(sql: string): Promise<unknown> }; onError(error: unknown): never };

/**
 * The adapter with `executeScript` running each statement `splitSqlScript`
 * finds, so a function body's semicolons stay inside its statement; a failing
 * statement stops the script with the adapter's own error.
 */
function withWholeStatements<T extends ScriptRunner>(adapter: T): T {
  const internals = adapter as unknown as AdapterInternals;
  adapter.executeScript = async (script: string) => {
    for (const sql of splitSqlScript(script)) {
      try {
        await internals.client.query(sql);
      } catch (error) {
        internals.onError(error);
      }
    }
  };
  return adapter;
}

/**
 * PrismaPg's own shadow-database hook connects back to the main database when
 * built from a URL, so the shadow database is created, connected and dropped here.
 */
function adapterWithOwnShadowDatabase(databaseUrl: string, opened: Array<{ dispose(): Promise<void> }>): PrismaPg {
  const adapter = new PrismaPg({ connectionString: databaseUrl });
  const connect = adapter.connect.bind(adapter);
  adapter.connect = async () => {
    const connection = withWholeStatements(await connect());
    opened.push(connection);
    return connection;
  };
  const shadowHook = adapter as unknown as { connectToShadowDb(): Promise<{ dispose(): Promise<void> }> };
  shadowHook.connectToShadowDb = async () => {
    const name = `prisma_shadow_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
    } finally {
      await admin.end();
    }
    const shadow = withWholeStatements(await new PrismaPg({ connectionString: withDatabase(databaseUrl, name) }).connect());
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    };
    return shadow;
  };
  return adapter;
}

export interface OpenedSchemaEngine {
  engine: SchemaEngine;
  /**
   * Frees the engine and closes the connections it opened. Freeing alone leaves
   * them open, and with them the migration lock (an advisory lock of the session):
   * the next engine on the database, in this process or another, would wait 10 s for it.
   */
  close(): Promise<void>;
}

export async function openSchemaEngine(
  databaseUrl: string,
  schema: { path: string; content: string },
  log: (message: string) => void = () => {},
): Promise<OpenedSchemaEngine> {
  bindingsPromise ??= loadBindings();
  const { SchemaEngine } = await bindingsPromise;
  const opened: Array<{ dispose(): Promise<void> }> = [];
  const factory = bindMigrationAwareSqlAdapterFactory(adapterWithOwnShadowDatabase(databaseUrl, opened));
  const engine = await SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, log, factory);
  return {
    engine,
    close: async () => {
      engine.free();
      await Promise.allSettled(opened.splice(0).map((connection) => connection.dispose()));
    },
  };
}
