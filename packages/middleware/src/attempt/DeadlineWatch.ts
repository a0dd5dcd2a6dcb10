import { type Clock, TIMER_STOPPED } from '../Clock.js';

/** An attempt being watched: `expire` runs once its time is up, unless it was unwatched first. */
export interface Watched {
  readonly at: number;
  readonly expire: () => void;
}

/**
 * The time limits of every attempt in flight, on ONE timer of the injected clock per resilience instance
 * instead of a timer, an `AbortController` and a promise per attempt: watching and unwatching an attempt is a
 * `Set` insertion and deletion. The timer is set for the earliest limit; when it fires, it expires what is due
 * and is set again for the earliest limit left. It is `unref`ed: it never keeps the process alive by itself
 * (an attempt that does I/O does).
 */
export class DeadlineWatch {
  private readonly watched = new Set<Watched>();
  private armedAt = Number.POSITIVE_INFINITY;
  private timer: AbortController | undefined;

  constructor(private readonly clock: Clock) {}

  watch(entry: Watched): void {
    this.watched.add(entry);
    if (entry.at < this.armedAt) this.arm(entry.at);
  }

  unwatch(entry: Watched): void {
    this.watched.delete(entry);
  }

  private arm(at: number): void {
    this.timer?.abort(TIMER_STOPPED);
    const timer = new AbortController();
    this.timer = timer;
    this.armedAt = at;
    this.clock.sleep(Math.max(0, at - this.clock.now()), timer.signal, { unref: true }).then(
      () => {
        if (this.timer === timer) this.fire();
      },
      () => {},
    );
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of [...this.watched]) {
      if (entry.at <= now) {
        this.watched.delete(entry);
        entry.expire();
      } else if (entry.at < next) next = entry.at;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}
