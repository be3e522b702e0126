import type { CapacityConfig } from "./config";
import { emptyModelMetrics, type SimModelMetrics } from "./metrics";
import type { PrefixCache } from "./prefix-cache";

/** One sample of a request, as the GPU sees it. */
export interface SequenceSpec {
  modelId: string;
  promptTokenCount: number;
  /** The prompt's chained block hashes (see prefix-cache.ts), shared by a request's sequences. */
  blockHashes: readonly number[];
  /** Tokens this sequence will decode; known up front because the model's text is. */
  completionTokens: number;
  /** Called once, synchronously from `submit` when a slot is free, with the prefix-cache hit. */
  onAdmitted?(cachedTokens: number): void;
  /** Streaming only: the number of tokens decoded so far, at most once per tick and only when it grew. */
  onTokens?(decoded: number): void;
  onFinished(): void;
}

export interface SequenceHandle {
  /** Frees the sequence's slot at once (client gone); no callback fires after it. */
  cancel(): void;
}

const WAITING = 0;
const RUNNING = 1;
const DONE = 2;

interface Sequence {
  readonly spec: SequenceSpec;
  state: typeof WAITING | typeof RUNNING | typeof DONE;
  readonly arrivedAt: number;
  decodeStartAt: number;
  finishAt: number;
  reported: number;
  readonly kvReservation: number;
}

interface ModelCounters {
  prefixCacheQueries: number;
  prefixCacheHits: number;
  promptTokens: number;
  /** Tokens of sequences no longer running; running ones are added when a snapshot is taken. */
  generationTokensDone: number;
}

/**
 * A replica's GPU in real time: a FIFO queue in front of `maxConcurrentSequences`
 * slots; an admitted sequence is prefilled by a replica-wide prefill stage (its
 * uncached tokens at `prefillTokensPerSecond`, one sequence after another) and
 * then decodes at `decodeTokensPerSecondPerSequence`.
 *
 * Each sequence's timeline is computed when it is admitted, so the only periodic
 * work is one tick that retires finished sequences and advances streams: cost
 * O(running) per tick, nothing while idle. A slot freed between two ticks is
 * handed to the next waiting sequence as of the moment it was freed, so the
 * replica delivers its full capacity whatever the tick length or event-loop lag.
 */
export class CapacityScheduler {
  private readonly running = new Set<Sequence>();
  private waiting: Sequence[] = [];
  private waitingHead = 0;
  private waitingCount = 0;
  private readonly waitingByModel = new Map<string, number>();
  private readonly counters = new Map<string, ModelCounters>();
  private reservedKv = 0;
  /** When the prefill stage is next free (real ms, `now()` clock). */
  private prefillFreeAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly msPerPrefillToken: number;
  private readonly msPerDecodeToken: number;

  constructor(
    private readonly capacity: CapacityConfig,
    timeScale: number,
    private readonly prefixCache: PrefixCache,
    modelIds: readonly string[],
    private readonly now: () => number = () => performance.now(),
  ) {
    this.msPerPrefillToken = 1000 / (capacity.prefillTokensPerSecond * timeScale);
    this.msPerDecodeToken = 1000 / (capacity.decodeTokensPerSecondPerSequence * timeScale);
    for (const id of modelIds) this.countersOf(id);
  }

  submit(spec: SequenceSpec): SequenceHandle {
    const sequence: Sequence = {
      spec,
      state: WAITING,
      arrivedAt: this.now(),
      decodeStartAt: 0,
      finishAt: 0,
      reported: 0,
      kvReservation: spec.promptTokenCount + spec.completionTokens,
    };
    if (this.waitingCount === 0 && this.canAdmit(sequence)) {
      this.admit(sequence, sequence.arrivedAt);
    } else {
      this.waiting.push(sequence);
      this.waitingCount++;
      this.waitingByModel.set(spec.modelId, (this.waitingByModel.get(spec.modelId) ?? 0) + 1);
    }
    this.startTimer();
    return { cancel: () => this.cancel(sequence) };
  }

  get runningCount(): number {
    return this.running.size;
  }

  get waitingTotal(): number {
    return this.waitingCount;
  }

  metrics(): Record<string, SimModelMetrics> {
    const now = this.now();
    const out: Record<string, SimModelMetrics> = {};
    const entry = (modelId: string): SimModelMetrics => {
      let metrics = out[modelId];
      if (!metrics) {
        const c = this.countersOf(modelId);
        metrics = {
          ...emptyModelMetrics(),
          prefixCacheQueries: c.prefixCacheQueries,
          prefixCacheHits: c.prefixCacheHits,
          promptTokens: c.promptTokens,
          generationTokens: c.generationTokensDone,
        };
        out[modelId] = metrics;
      }
      return metrics;
    };
    for (const modelId of this.counters.keys()) entry(modelId);
    for (const sequence of this.running) {
      const metrics = entry(sequence.spec.modelId);
      const decoded = this.decoded(sequence, now);
      metrics.running++;
      metrics.kvCacheUsage += sequence.spec.promptTokenCount + decoded;
      metrics.generationTokens += decoded;
    }
    for (const [modelId, count] of this.waitingByModel) entry(modelId).waiting = count;
    for (const metrics of Object.values(out)) metrics.kvCacheUsage /= this.capacity.kvCacheTokens;
    return out;
  }

  /** Forgets every sequence without calling back (the server is closing its connections anyway). */
  close(): void {
    for (const sequence of this.running) sequence.state = DONE;
    for (let i = this.waitingHead; i < this.waiting.length; i++) this.waiting[i]!.state = DONE;
    this.running.clear();
    this.waiting = [];
    this.waitingHead = 0;
    this.waitingCount = 0;
    this.waitingByModel.clear();
    this.reservedKv = 0;
    this.stopTimer();
  }

  private countersOf(modelId: string): ModelCounters {
    let counters = this.counters.get(modelId);
    if (!counters) {
      counters = { prefixCacheQueries: 0, prefixCacheHits: 0, promptTokens: 0, generationTokensDone: 0 };
      this.counters.set(modelId, counters);
    }
    return counters;
  }

  private canAdmit(sequence: Sequence): boolean {
    if (this.running.size >= this.capacity.maxConcurrentSequences) return false;
    // An oversized sequence still runs alone rather than blocking the queue forever.
    return this.running.size === 0 || this.reservedKv + sequence.kvReservation <= this.capacity.kvCacheTokens;
  }

  private admit(sequence: Sequence, at: number): void {
    const { spec } = sequence;
    sequence.state = RUNNING;
    this.running.add(sequence);
    this.reservedKv += sequence.kvReservation;
    const cached = this.prefixCache.admit(spec.blockHashes, spec.promptTokenCount);
    const counters = this.countersOf(spec.modelId);
    counters.prefixCacheQueries += spec.promptTokenCount;
    counters.prefixCacheHits += cached;
    counters.promptTokens += spec.promptTokenCount;
    const prefillStart = Math.max(at, this.prefillFreeAt);
    sequence.decodeStartAt = prefillStart + (spec.promptTokenCount - cached) * this.msPerPrefillToken;
    this.prefillFreeAt = sequence.decodeStartAt;
    sequence.finishAt = sequence.decodeStartAt + spec.completionTokens * this.msPerDecodeToken;
    guarded(() => spec.onAdmitted?.(cached));
  }

  /** Admits waiting sequences in order while they fit, as of time `at` (when the space was freed). */
  private admitWaiting(at: number): Sequence[] {
    const admitted: Sequence[] = [];
    while (this.waitingHead < this.waiting.length) {
      const head = this.waiting[this.waitingHead]!;
      if (head.state === DONE) {
        this.waitingHead++;
        continue;
      }
      if (!this.canAdmit(head)) break;
      this.waitingHead++;
      this.waitingCount--;
      this.waitingByModel.set(head.spec.modelId, (this.waitingByModel.get(head.spec.modelId) ?? 1) - 1);
      this.admit(head, Math.max(at, head.arrivedAt));
      admitted.push(head);
    }
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.waitingHead);
      this.waitingHead = 0;
    }
    return admitted;
  }

  private decoded(sequence: Sequence, now: number): number {
    if (now <= sequence.decodeStartAt) return 0;
    return Math.min(sequence.spec.completionTokens, Math.floor((now - sequence.decodeStartAt) / this.msPerDecodeToken));
  }

  private release(sequence: Sequence, decoded: number): void {
    sequence.state = DONE;
    this.running.delete(sequence);
    this.reservedKv -= sequence.kvReservation;
    this.countersOf(sequence.spec.modelId).generationTokensDone += decoded;
  }

  private cancel(sequence: Sequence): void {
    if (sequence.state === WAITING) {
      sequence.state = DONE;
      this.waitingCount--;
      this.waitingByModel.set(sequence.spec.modelId, (this.waitingByModel.get(sequence.spec.modelId) ?? 1) - 1);
    } else if (sequence.state === RUNNING) {
      const now = this.now();
      this.release(sequence, this.decoded(sequence, now));
      this.admitWaiting(now);
    }
  }

  private tick(): void {
    const now = this.now();
    const due: Sequence[] = [];
    for (const sequence of this.running) if (sequence.finishAt <= now) due.push(sequence);
    due.sort(byFinish);
    for (let i = 0; i < due.length; i++) {
      const sequence = due[i]!;
      if (sequence.state !== RUNNING) continue;
      const { spec } = sequence;
      this.release(sequence, spec.completionTokens);
      if (spec.onTokens && sequence.reported < spec.completionTokens) guarded(() => spec.onTokens!(spec.completionTokens));
      guarded(() => spec.onFinished());
      // Backdated admissions of short sequences may already be over: retire them in this tick, in order.
      for (const next of this.admitWaiting(sequence.finishAt)) {
        if (next.finishAt <= now) insertSorted(due, i + 1, next);
      }
    }
    for (const sequence of this.running) {
      const onTokens = sequence.spec.onTokens;
      if (!onTokens) continue;
      const decoded = this.decoded(sequence, now);
      if (decoded > sequence.reported) {
        sequence.reported = decoded;
        guarded(() => onTokens(decoded));
      }
    }
    if (this.running.size === 0 && this.waitingCount === 0) this.stopTimer();
  }

  private startTimer(): void {
    this.timer ??= setInterval(() => this.tick(), this.capacity.tickMs);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function byFinish(a: Sequence, b: Sequence): number {
  return a.finishAt - b.finishAt;
}

function insertSorted(list: Sequence[], from: number, item: Sequence): void {
  let at = list.length;
  while (at > from && list[at - 1]!.finishAt > item.finishAt) at--;
  list.splice(at, 0, item);
}

/** A request handler's bug must not stop the replica's clock for everyone else. */
function guarded(callback: () => void): void {
  try {
    callback();
  } catch (error) {
    process.stderr.write(`sim-server: scheduler callback failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
}
