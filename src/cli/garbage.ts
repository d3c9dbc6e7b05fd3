import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { setGarbageCollector } from '../core/io/garbage';

/**
 * V8's defaults trade memory for speed: the young generation grows to 2 × 16 MB, and the heap may
 * grow up to 4× past what survived the last full collection before the next one, so a parse that
 * keeps 40 MB and makes garbage as it goes peaked at 150 MB of heap. The CLI keeps the young
 * generation at its first size and lets the heap grow 20% at a time: about 40 MB less at the peak
 * for about a third more time in the parse (issue 23: peak memory under 3× the input; `npm run
 * bench` prints both). Set when the CLI starts: set only before the first big read, as at first,
 * the young generation had often grown already, and a 6 MB session still peaked 20 MB higher.
 */
const READ_TUNING = ['--semi-space-growth-factor=1', '--heap-growing-percent=20', '--optimize-for-size'];
// `--optimize-for-size` lowers the least V8 raises the heap's limit by after a full collection
// from 8 MB to 2 MB, which a read whose live heap is tens of MB never outgrows: a 6 MB Gemini
// session of short messages peaked 10 MB lower (26 → 16 MB above an empty run), the 23 MB OTLP
// document 7 MB and the 15 MB span stream 20 MB lower, for 10–20% more CPU. A big read (32 MB
// and up, `core/io/garbage.ts`) turns it off again: there the 20% growth is the larger step
// anyway, and the flag cost `compact` 10–15% of its time on a 120 MB OpenHands file.
const BIG_READ_TUNING = ['--no-optimize-for-size'];

/** V8's own values for the same flags (growth factor 2; 0: V8 chooses the heap's growth). */
const V8_DEFAULTS = ['--semi-space-growth-factor=2', '--heap-growing-percent=0', '--no-optimize-for-size'];

function setFlags(flags: readonly string[]): void {
  for (const flag of flags) {
    try {
      v8.setFlagsFromString(flag);
    } catch {
      // An embedder that refuses run-time flags keeps V8's defaults.
    }
  }
}

// The CLI owns its process, so it may tune V8's collector and ask for a full collection after a
// big read (see core/io/garbage.ts). `gc` is not exposed without a flag; setting the flag at run
// time exposes it to contexts created afterwards. If that ever stops working, V8 simply collects
// on its own.
export function installGarbageCollector(): void {
  let collect: (() => void) | null | undefined;
  const collectNow = () => {
    if (collect === undefined) {
      try {
        v8.setFlagsFromString('--expose-gc');
        const gc: unknown = vm.runInNewContext('gc');
        collect = typeof gc === 'function' ? (gc as () => void) : null;
      } catch {
        collect = null;
      }
    }
    collect?.();
  };
  setFlags(READ_TUNING);
  setGarbageCollector(collectNow, () => setFlags(BIG_READ_TUNING));
}

/**
 * Only a process that reads one file keeps the tuning: a survey gives V8's defaults back before
 * its workers start (flags are the process's), so each worker reads its files at full speed.
 */
export function restoreCollectorDefaults(): void {
  setFlags(V8_DEFAULTS);
}
