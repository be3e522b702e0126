import { rm, stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { writeInitdbPasswordFile } from "../src/embedded/postgres-server";

describe("the embedded server's first password file", () => {
  it("is 0600 in a fresh 0700 folder, owned by the user that runs initdb", async () => {
    const owner = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const { passwordDir, passwordFile } = await writeInitdbPasswordFile("s3cret-password", owner);
    try {
      const dir = await stat(passwordDir);
      const file = await stat(passwordFile);
      expect((dir.mode & 0o777).toString(8)).toBe("700");
      expect((file.mode & 0o777).toString(8)).toBe("600");
      expect(file.uid).toBe(owner?.uid ?? process.getuid?.());
      expect(dir.uid).toBe(owner?.uid ?? process.getuid?.());
      // A second call never reuses the folder.
      const again = await writeInitdbPasswordFile("other", owner);
      expect(again.passwordDir).not.toBe(passwordDir);
      await rm(again.passwordDir, { recursive: true });
    } finally {
      await rm(passwordDir, { recursive: true, force: true });
    }
  });
});
