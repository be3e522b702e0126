import { readFileSync } from "node:fs";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { contentHashOf } from "../../src/imports/content-hash";
import { sha256Hex } from "../../src/imports/sha256";
import { readFixture } from "./import-helpers";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("sha256Hex", () => {
  it("gives the FIPS 180-4 test vectors", () => {
    expect(sha256Hex(new Uint8Array())).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex(utf8("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex(utf8("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    expect(sha256Hex(new Uint8Array(1_000_000).fill(0x61))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  });

  it("is @noble/hashes' SHA-256, declared as a dependency of @stepwiser/core, with no hand-written rounds left", () => {
    const message = utf8("x ≤ y".repeat(41));
    expect(sha256Hex(message)).toBe(bytesToHex(sha256(message)));
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["@noble/hashes"]).toBeDefined();
    const source = readFileSync(new URL("../../src/imports/sha256.ts", import.meta.url), "utf8");
    expect(source).toContain("@noble/hashes");
    expect(source).not.toMatch(/0x428a2f98|rotr/);
  });

  it("keeps the content hashes of an imported fixture unchanged", async () => {
    const records = await readFixture("processbench", "processbench-small.json");
    // Pinned in import-formats.test.ts when the hand-written SHA-256 computed it.
    expect(records[1]!.solution.contentHash).toBe("a78ebb5836fb0e4c6eed25249bd04f95525bad42de734bc6bd265d2bf77f0aba");
    expect(contentHashOf("What is 1 + 1?", ["1 + 1 = 2.", "The answer is 2."], "qwen")).toBe(
      "e8270305c7021d5e82bebc9ad07553eeb1b0369a27d30e78fc6e8c427f780ab0",
    );
  });
});
