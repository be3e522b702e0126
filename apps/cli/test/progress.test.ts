import { describe, expect, it } from "vitest";
import { formatDuration, formatProgress, formatRate, ProgressLine, ProgressMeter, type ProgressStream } from "../src/progress";

/** Records every write, and replays them as a terminal would show them (carriage return, erase to end of line, newline). */
class FakeStream implements ProgressStream {
  readonly writes: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  write(text: string): boolean {
    this.writes.push(text);
    return true;
  }
  get output(): string {
    return this.writes.join("");
  }
  /** The screen's rows after the writes, interpreting only what the progress line emits. */
  screen(): string[] {
    const rows: string[] = [""];
    let column = 0;
    const text = this.output;
    for (let i = 0; i < text.length; i++) {
      const row = rows.length - 1;
      if (text.startsWith("\u001b[K", i)) {
        rows[row] = rows[row]!.slice(0, column);
        i += 2;
      } else if (text[i] === "\r") column = 0;
      else if (text[i] === "\n") {
        rows.push("");
        column = 0;
      } else {
        const line = rows[row]!.padEnd(column);
        rows[row] = line.slice(0, column) + text[i] + line.slice(column + 1);
        column += 1;
      }
    }
    return rows;
  }
}

describe("formatProgress", () => {
  it("shows done/total, the rate and the time left", () => {
    expect(formatProgress({ done: 37, total: 120, elapsedSeconds: 9 })).toBe("37/120 units · 4.1/s · ETA 21 s");
    expect(formatProgress({ done: 30, total: 120, elapsedSeconds: 10, unit: "records" })).toBe("30/120 records · 3.0/s · ETA 30 s");
  });

  it("counts the rate from what was done while following, not before", () => {
    // A resumed run: 100 units were done before; 20 more in 10 s leave 80 at 2/s.
    expect(formatProgress({ done: 120, total: 200, elapsedSeconds: 10, doneAtStart: 100 })).toBe("120/200 units · 2.0/s · ETA 40 s");
  });

  it("says what it does not know yet instead of dividing by zero", () => {
    expect(formatProgress({ done: 0, total: 120, elapsedSeconds: 0 })).toBe("0/120 units · –/s · ETA –");
    expect(formatProgress({ done: 0, total: 120, elapsedSeconds: 5 })).toBe("0/120 units · –/s · ETA –");
    // Not planned yet: no total, so no ETA, but the count and the rate.
    expect(formatProgress({ done: 50, total: 0, elapsedSeconds: 10, unit: "rows" })).toBe("50 rows · 5.0/s · ETA –");
  });

  it("replaces the ETA by the time taken once finished", () => {
    expect(formatProgress({ done: 120, total: 120, elapsedSeconds: 64.2, finished: true })).toBe("120/120 units · 1.9/s · 1 min 05 s");
  });

  it("formats rates and durations for reading", () => {
    expect([0.25, 0.0123, 1, 4.06, 9.96, 10, 37.4, 1234.5].map(formatRate)).toEqual(["0.25", "0.012", "1.0", "4.1", "10", "10", "37", "1235"]);
    expect([0, 0.2, 20, 59.5, 60, 185, 3599, 3600, 7620].map(formatDuration)).toEqual(["0 s", "1 s", "20 s", "1 min 00 s", "1 min 00 s", "3 min 05 s", "59 min 59 s", "1 h 00 min", "2 h 07 min"]);
  });
});

describe("ProgressMeter", () => {
  it("measures from its first reading", () => {
    let now = 1_000;
    const meter = new ProgressMeter("units", () => now);
    expect(meter.format(10, 50)).toBe("10/50 units · –/s · ETA –");
    now += 4_000;
    expect(meter.format(30, 50)).toBe("30/50 units · 5.0/s · ETA 4 s");
    now += 4_000;
    expect(meter.format(50, 50, true)).toBe("50/50 units · 5.0/s · 8 s");
  });
});

describe("ProgressLine on a terminal", () => {
  it("redraws one line in place and ends it with a newline", () => {
    const stream = new FakeStream(true);
    const line = new ProgressLine(stream);
    line.update("run r1: running 1/3 units");
    line.update("run r1: running 2/3 units");
    line.finish("run r1: completed 3/3 units");
    expect(stream.writes).toEqual([
      "\rrun r1: running 1/3 units\u001b[K",
      "\rrun r1: running 2/3 units\u001b[K",
      "\rrun r1: completed 3/3 units\u001b[K\n",
    ]);
    expect(stream.output.endsWith("\n")).toBe(true);
    expect(stream.screen()).toEqual(["run r1: completed 3/3 units", ""]);
  });

  it("leaves nothing of a longer line behind when the line gets shorter", () => {
    const stream = new FakeStream(true);
    const line = new ProgressLine(stream);
    line.update("run r1: running 9/10 units · 0.25/s · ETA 4 s · 1000 requests");
    line.update("run r1: running 10/10 units");
    expect(stream.screen()).toEqual(["run r1: running 10/10 units"]);
    line.finish("done");
    expect(stream.screen()).toEqual(["done", ""]);
  });

  it("writes nothing when the text has not changed", () => {
    const stream = new FakeStream(true);
    const line = new ProgressLine(stream);
    line.update("a");
    line.update("a");
    expect(stream.writes).toHaveLength(1);
  });

  it("keeps the line within the terminal's width, so it never wraps", () => {
    const stream = new FakeStream(true, 20);
    const line = new ProgressLine(stream);
    line.update("run r1: running 1/3 units · 4.1/s · ETA 20 s");
    expect(stream.screen()).toEqual(["run r1: running 1/…"]);
    expect(stream.screen()[0]!.length).toBeLessThan(20);
  });

  it("prints a message on its own line and draws the progress again below it", () => {
    const stream = new FakeStream(true);
    const line = new ProgressLine(stream);
    line.update("run r1: running 1/3 units");
    line.log("queued import run r2");
    line.update("run r1: running 1/3 units");
    expect(stream.screen()).toEqual(["queued import run r2", "run r1: running 1/3 units"]);
  });
});

describe("ProgressLine elsewhere (a pipe, a log file)", () => {
  it("writes plain lines without control characters, one per change of the key", () => {
    const stream = new FakeStream(false);
    const line = new ProgressLine(stream);
    line.update("run r1: running 1/3 units · –/s · ETA –", "running 1");
    line.update("run r1: running 1/3 units · 2.0/s · ETA 1 s", "running 1");
    line.update("run r1: running 2/3 units · 2.0/s · ETA 1 s", "running 2");
    line.finish("run r1: completed 3/3 units · 2.0/s · 2 s");
    expect(stream.output).toBe(
      "run r1: running 1/3 units · –/s · ETA –\nrun r1: running 2/3 units · 2.0/s · ETA 1 s\nrun r1: completed 3/3 units · 2.0/s · 2 s\n",
    );
    expect(stream.output).not.toContain("\r");
    expect(stream.output).not.toContain("\u001b");
  });

  it("treats a stream without isTTY as not a terminal", () => {
    const writes: string[] = [];
    const line = new ProgressLine({ write: (text: string) => writes.push(text) });
    line.update("x");
    line.finish("y");
    expect(writes).toEqual(["x\n", "y\n"]);
  });
});
