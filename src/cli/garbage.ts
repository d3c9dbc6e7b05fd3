import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { setGarbageCollector } from '../core/io/garbage';

// The CLI owns its process, so it may ask V8 for a full collection after a big read (see
// core/io/garbage.ts). `gc` is not exposed without a flag; setting the flag at run time exposes it
// to contexts created afterwards. If that ever stops working, V8 simply collects on its own.
export function installGarbageCollector(): void {
  let collect: (() => void) | null | undefined;
  setGarbageCollector(() => {
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
  });
}
