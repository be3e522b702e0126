import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { extractAnswer, type GradeOptions, type GradeResult, type GradedSide } from "@stepwiser/core";

/**
 * In the command line's build (apps/cli/scripts/build.mjs), the built thread entry, relative to this
 * file; when running from source it is not defined and threads load the TypeScript body through tsx.
 */
declare const STEPWISER_BUILT_GRADING_THREAD: string | undefined;

export interface GradeRequest {
  id: number;
  gold: string;
  pred: string;
  options: GradeOptions;
}

export type GradeResponse = { id: number; result: GradeResult } | { id: number; error: string };

/** What a caller may choose per pool or per pair; the time limit is the pool's. */
export type PoolGradeOptions = Omit<GradeOptions, "timeLimitMs" | "now">;

export interface GradingPoolOptions {
  /** Worker threads; defaults to the number of cores, at most 4. */
  threads?: number;
  /**
   * Wall-clock limit per pair. The grader gets most of it as its own cooperative
   * deadline; a pair still running at the limit has its thread terminated and is
   * recorded as a timeout, so no expression can hang the caller.
   */
  timeLimitMs?: number;
  /** Options of every pair, unless a call gives its own. */
  gradeOptions?: PoolGradeOptions;
  /**
   * Share of the limit given to the grader's own cooperative deadline (default 0.8);
   * the rest covers message passing, so a cooperative timeout normally answers
   * before the thread has to be killed.
   */
  cooperativeShare?: number;
}

interface Task {
  request: GradeRequest;
  resolve: (result: GradeResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
  startedAt: number;
}

export const DEFAULT_GRADING_TIME_LIMIT_MS = 2000;

const DEFAULT_COOPERATIVE_SHARE = 0.8;

/**
 * Grades answer pairs on worker threads with a hard per-pair time limit. Results
 * come back per call; callers that need input order await in order. Threads keep
 * the process alive only while the pool has work: an idle pool never holds up exit.
 */
export class GradingPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readyWaiters: Array<() => void> = [];
  private readonly timeLimitMs: number;
  private readonly gradeOptions: GradeOptions;
  private nextId = 0;
  private closed = false;

  constructor(options: GradingPoolOptions = {}) {
    this.timeLimitMs = options.timeLimitMs ?? DEFAULT_GRADING_TIME_LIMIT_MS;
    if (!(this.timeLimitMs > 0)) throw new RangeError(`timeLimitMs must be positive, got ${this.timeLimitMs}`);
    const share = options.cooperativeShare ?? DEFAULT_COOPERATIVE_SHARE;
    this.gradeOptions = { ...options.gradeOptions, timeLimitMs: Math.max(1, Math.floor(this.timeLimitMs * share)) };
    const threads = options.threads ?? Math.min(4, Math.max(1, availableParallelism()));
    for (let i = 0; i < threads; i++) this.slots.push(this.spawn());
    this.updateRefs();
  }

  /** Grades one pair; `options`, if given, override the pool's grade options for this pair (the time limit stays the pool's). */
  grade(gold: string, pred: string, options?: PoolGradeOptions): Promise<GradeResult> {
    if (this.closed) return Promise.reject(new Error("the grading pool is closed"));
    const pairOptions = options ? { ...this.gradeOptions, ...options, timeLimitMs: this.gradeOptions.timeLimitMs } : this.gradeOptions;
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, gold, pred, options: pairOptions }, resolve, reject });
      this.dispatch();
      this.updateRefs();
    });
  }

  /**
   * Resolves once every thread has loaded the grader and built its CAS (a replaced
   * thread counts again), so a caller that measures or starts a burst of work can
   * wait for the whole pool rather than for whichever thread came up first.
   */
  ready(): Promise<void> {
    if (this.closed || this.slots.every((slot) => slot.ready)) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeReadyWaiters();
    for (const task of this.queue.splice(0)) task.reject(new Error("the grading pool was closed"));
    await Promise.all(this.slots.map((slot) => this.retire(slot)));
  }

  private spawn(): Slot {
    const worker = new Worker(new URL(typeof STEPWISER_BUILT_GRADING_THREAD === "string" ? STEPWISER_BUILT_GRADING_THREAD : "./grading-thread.mjs", import.meta.url));
    const slot: Slot = { worker, ready: false, task: null, timer: null, startedAt: 0 };
    worker.on("message", (message: GradeResponse | { ready: true }) => {
      if ("ready" in message) {
        slot.ready = true;
        this.dispatch();
        if (this.slots.every((each) => each.ready)) this.wakeReadyWaiters();
        return;
      }
      this.finish(slot, message);
    });
    worker.on("error", (error) => this.replace(slot, error));
    worker.on("exit", (code) => {
      if (!this.closed && this.slots.includes(slot) && slot.worker === worker) {
        this.replace(slot, new Error(`grading thread exited with code ${code}`));
      }
    });
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.task || this.queue.length === 0) continue;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.startedAt = Date.now();
      slot.timer = setTimeout(() => this.timeOut(slot), this.timeLimitMs);
      slot.worker.postMessage(task.request);
    }
  }

  /** Threads hold the event loop open while any pair is queued or being graded, and only then. */
  private updateRefs(): void {
    const busy = this.queue.length > 0 || this.slots.some((slot) => slot.task !== null);
    for (const slot of this.slots) {
      if (busy) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  private finish(slot: Slot, response: GradeResponse): void {
    const task = slot.task;
    if (!task || task.request.id !== response.id) return;
    this.clear(slot);
    if ("error" in response) task.reject(new Error(`grading failed: ${response.error}`));
    else task.resolve(response.result);
    this.dispatch();
    this.updateRefs();
  }

  private timeOut(slot: Slot): void {
    const task = slot.task;
    if (!task) return;
    // Timers may fire a millisecond early against the wall clock; a pair is only
    // stopped once it has really had its whole limit.
    const remainingMs = this.timeLimitMs - (Date.now() - slot.startedAt);
    if (remainingMs > 0) {
      slot.timer = setTimeout(() => this.timeOut(slot), remainingMs);
      return;
    }
    this.clear(slot);
    task.resolve(timeoutResult(task.request, Date.now() - slot.startedAt));
    this.swap(slot);
    this.updateRefs();
  }

  /** A thread that failed outside a task (or crashed in one) is replaced; its task fails. */
  private replace(slot: Slot, error: Error): void {
    const task = slot.task;
    this.clear(slot);
    task?.reject(error);
    if (!this.closed) this.swap(slot);
    this.updateRefs();
  }

  private swap(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    void this.retire(slot);
    this.slots[index] = this.spawn();
  }

  private wakeReadyWaiters(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  private clear(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
  }

  private async retire(slot: Slot): Promise<void> {
    slot.worker.removeAllListeners("exit");
    slot.worker.removeAllListeners("error");
    slot.worker.on("error", () => {});
    await slot.worker.terminate();
  }
}

/**
 * Extraction is linear-time string work, so a timed-out pair still reports what was compared:
 * the gold answer read leniently, the prediction in the pool's extraction mode, as the grader reads them.
 */
function sideOf(text: string, mode?: GradeOptions["mode"]): GradedSide {
  const extracted = extractAnswer(text, mode);
  return { extracted: extracted?.text ?? null, rule: extracted?.rule ?? null, normalised: null };
}

function timeoutResult(request: GradeRequest, elapsedMs: number): GradeResult {
  return { equivalent: false, reason: "timeout", gold: sideOf(request.gold), pred: sideOf(request.pred, request.options.mode), elapsedMs };
}
