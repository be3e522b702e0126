/**
 * Progress of a followed run on stderr: on a terminal one line redrawn in place (carriage return, the text, then
 * "erase to end of line", so a shorter text leaves nothing of the longer one behind); elsewhere (a pipe, a log file,
 * CI) plain lines, one per change of what the line counts, so logs stay readable and no longer than before.
 */

export interface ProgressFigures {
  /** Units done so far. */
  done: number;
  /** Units in all; 0 or less while the run has not planned them yet. */
  total: number;
  /** Seconds since the follower first saw the run. */
  elapsedSeconds: number;
  /** Units already done when the follower first saw the run (a resumed or already running run): not counted in the rate. */
  doneAtStart?: number;
  /** What is counted: "units", "records", "rows"… */
  unit?: string;
  /** The run has ended: the elapsed time replaces the ETA. */
  finished?: boolean;
}

/** "37/120 units · 4.1/s · ETA 20 s"; "37/120 units · 4.1/s · 9 s" once finished; "–" where a figure is not known yet. */
export function formatProgress({ done, total, elapsedSeconds, doneAtStart = 0, unit = "units", finished = false }: ProgressFigures): string {
  const counted = total > 0 ? `${done}/${total} ${unit}` : `${done} ${unit}`;
  const measured = done - doneAtStart;
  const rate = elapsedSeconds > 0 && measured > 0 ? measured / elapsedSeconds : null;
  const rateText = rate === null ? "–/s" : `${formatRate(rate)}/s`;
  if (finished) return `${counted} · ${rateText} · ${formatDuration(elapsedSeconds)}`;
  const remaining = total - done;
  const eta = total <= 0 || rate === null ? "–" : formatDuration(Math.max(0, remaining) / rate);
  return `${counted} · ${rateText} · ETA ${eta}`;
}

/** Two significant figures below 10 per second, whole numbers above: "0.25", "4.1", "37". */
export function formatRate(perSecond: number): string {
  if (perSecond >= 9.95) return String(Math.round(perSecond));
  if (perSecond >= 1) return perSecond.toFixed(1);
  return perSecond.toPrecision(2);
}

/** "20 s", "3 min 05 s", "2 h 07 min" (rounded up to the second, the way a countdown reads). */
export function formatDuration(seconds: number): string {
  const whole = Math.ceil(Math.max(0, seconds));
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  const minutes = Math.floor(whole / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** What the writer needs of a stream: `process.stderr` is one; tests pass an object that records what is written. */
export interface ProgressStream {
  isTTY?: boolean;
  /** The terminal's width, when known: a line longer than that would wrap, and a carriage return would then redraw only its last row. */
  columns?: number;
  write(text: string): unknown;
}

const CLEAR_TO_END = "\u001b[K";

export class ProgressLine {
  private readonly tty: boolean;
  /** The text on the terminal's current line (TTY), or the key of the last line written (otherwise). */
  private shown: string | null = null;

  constructor(private readonly stream: ProgressStream) {
    this.tty = stream.isTTY === true;
  }

  /**
   * Shows the current progress. On a terminal the line is redrawn whenever its text changes; otherwise a new line is
   * written only when `key` changes (the counts, not the rate or the ETA, which move with every poll).
   */
  update(text: string, key: string = text): void {
    if (this.tty) {
      const fitted = this.fit(text);
      if (fitted === this.shown) return;
      this.stream.write(`\r${fitted}${CLEAR_TO_END}`);
      this.shown = fitted;
      return;
    }
    if (key === this.shown) return;
    this.stream.write(`${text}\n`);
    this.shown = key;
  }

  /** The last line: written in full and ended with a newline, so what follows starts on a line of its own. */
  finish(text: string): void {
    if (this.tty) this.stream.write(`\r${text}${CLEAR_TO_END}\n`);
    else this.stream.write(`${text}\n`);
    this.shown = null;
  }

  /** A message of its own between progress updates: on a terminal it replaces the progress line, which the next update draws again below it. */
  log(line: string): void {
    if (this.tty && this.shown !== null) this.stream.write(`\r${CLEAR_TO_END}`);
    this.stream.write(`${line}\n`);
    this.shown = null;
  }

  private fit(text: string): string {
    const width = this.stream.columns;
    if (!width || width < 2 || text.length < width) return text;
    return `${text.slice(0, width - 2)}…`;
  }
}

/** Remembers when following began and how much was done then, so each poll's counts become rate and ETA. */
export class ProgressMeter {
  private readonly startedAt: number;
  private doneAtStart: number | undefined;

  constructor(
    private readonly unit = "units",
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now();
  }

  format(done: number, total: number, finished = false): string {
    this.doneAtStart ??= done;
    return formatProgress({ done, total, elapsedSeconds: (this.now() - this.startedAt) / 1000, doneAtStart: this.doneAtStart, unit: this.unit, finished });
  }
}
