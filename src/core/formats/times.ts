import type { Warning } from '../model';

// Timestamps come from the log, so they are untrusted: `new Date(1e20).toISOString()` throws
// ("Invalid time value"), and one such field must not make a whole file unreadable. A time
// outside the range a Date can hold (±8.64e15 ms around 1970) is ignored and named once.

const MAX_MS = 8.64e15;

/** ISO text of an epoch time in milliseconds, or undefined when no Date can hold it. */
export function isoOfMs(ms: number): string | undefined {
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_MS ? new Date(ms).toISOString() : undefined;
}

/** Collects the out-of-range times of one file and names them in a single warning. */
export class TimeCheck {
  private count = 0;
  private first: { value: unknown; where: string } | undefined;

  /** ISO text of `ms` (epoch milliseconds), or undefined (and remembered) when it is out of range. */
  iso(ms: number, raw: unknown, where: string): string | undefined {
    const iso = isoOfMs(ms);
    if (iso === undefined) {
      this.count++;
      this.first ??= { value: raw, where };
    }
    return iso;
  }

  report(warnings: Warning[]): void {
    if (!this.first) return;
    const value = String(this.first.value).slice(0, 40);
    const more = this.count > 1 ? ` and ${this.count - 1} more` : '';
    warnings.push({ message: `Timestamp ${value} at ${this.first.where}${more} is outside the range of valid dates and was ignored.` });
  }
}
