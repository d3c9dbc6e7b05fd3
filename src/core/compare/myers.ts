// The longest common subsequence of two sequences of integer keys, by Myers' O(ND) algorithm in
// linear space (the middle-snake divide and conquer of "An O(ND) Difference Algorithm and Its
// Variations", 1986, §4b), as GNU diff runs it: common prefix and suffix stripped first, keys that
// occur on one side only set aside (they can never match), and a cost cap per split beyond which
// the split is taken at the furthest point reached so far. Under the cap the result is a longest
// common subsequence; above it (two long runs that share many keys in a scrambled order) it is a
// common subsequence close to the longest, found in bounded time. Memory is O(N + M): no table.

/** Matched index pairs, increasing on both sides. */
export interface Matches {
  a: number[];
  b: number[];
}

export interface LcsOptions {
  /**
   * Edit cost per split after which the search settles for the best split found so far.
   * Default as GNU diff: a power of two of about √(N+M), here at least 256.
   */
  maxCost?: number;
}

/**
 * The least cost cap. GNU diff floors it at 4096 for text files; runs of scrambled repeats (the
 * same few tool calls in another order) made that cost seconds at 20,000 steps, while 256 keeps
 * the alignment exact for runs that differ in up to a few hundred steps per split.
 */
const MIN_COST_CAP = 256;

export function commonSubsequence(a: ArrayLike<number>, b: ArrayLike<number>, options: LcsOptions = {}): Matches {
  const out: Matches = { a: [], b: [] };
  // Keys present on one side only are unmatched whatever the alignment: drop them before the search.
  const inB = new Set<number>();
  for (let j = 0; j < b.length; j++) inB.add(b[j]);
  const inA = new Set<number>();
  for (let i = 0; i < a.length; i++) inA.add(a[i]);
  const aIdx: number[] = [];
  const bIdx: number[] = [];
  for (let i = 0; i < a.length; i++) if (inB.has(a[i])) aIdx.push(i);
  for (let j = 0; j < b.length; j++) if (inA.has(b[j])) bIdx.push(j);
  const x = Int32Array.from(aIdx, (i) => a[i]);
  const y = Int32Array.from(bIdx, (j) => b[j]);
  if (x.length === 0 || y.length === 0) return out;

  const n = x.length;
  const m = y.length;
  const size = n + m + 3;
  const offset = m + 1;
  const fd = new Int32Array(size);
  const bd = new Int32Array(size);
  let tooExpensive = 1;
  for (let diags = n + m + 3; diags !== 0; diags >>= 2) tooExpensive <<= 1;
  tooExpensive = options.maxCost !== undefined ? Math.max(1, options.maxCost) : Math.max(MIN_COST_CAP, tooExpensive);

  const emit = (i: number, j: number) => {
    out.a.push(aIdx[i]);
    out.b.push(bIdx[j]);
  };

  // Explicit stack instead of recursion: a long run of small splits would overflow the call stack.
  type Task = [xoff: number, xlim: number, yoff: number, ylim: number, minimal: boolean];
  const stack: Task[] = [[0, n, 0, m, false]];
  // Matches come out of order (prefix runs before the split's halves): collect, then sort.
  const pairs: number[] = [];
  while (stack.length > 0) {
    let [xoff, xlim, yoff, ylim, minimal] = stack.pop()!;
    while (xoff < xlim && yoff < ylim && x[xoff] === y[yoff]) { pairs.push(xoff, yoff); xoff++; yoff++; }
    while (xoff < xlim && yoff < ylim && x[xlim - 1] === y[ylim - 1]) { xlim--; ylim--; pairs.push(xlim, ylim); }
    if (xoff === xlim || yoff === ylim) continue;
    const part = split(x, y, fd, bd, offset, xoff, xlim, yoff, ylim, minimal, tooExpensive);
    stack.push([part.xmid, xlim, part.ymid, ylim, part.hiMinimal]);
    stack.push([xoff, part.xmid, yoff, part.ymid, part.loMinimal]);
  }
  const order: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) order.push(k);
  order.sort((p, q) => pairs[p] - pairs[q]);
  for (const k of order) emit(pairs[k], pairs[k + 1]);
  return out;
}

interface Partition {
  xmid: number;
  ymid: number;
  loMinimal: boolean;
  hiMinimal: boolean;
}

/** Finds the middle snake of x[xoff..xlim) × y[yoff..ylim), or a good split once the cost cap is hit. */
function split(
  x: Int32Array, y: Int32Array, fd: Int32Array, bd: Int32Array, off: number,
  xoff: number, xlim: number, yoff: number, ylim: number, minimal: boolean, tooExpensive: number,
): Partition {
  const dmin = xoff - ylim;
  const dmax = xlim - yoff;
  const fmid = xoff - yoff;
  const bmid = xlim - ylim;
  let fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
  const odd = ((fmid - bmid) & 1) !== 0;
  fd[off + fmid] = xoff;
  bd[off + bmid] = xlim;
  const BIG = 0x7fffffff;
  for (let c = 1; ; c++) {
    if (fmin > dmin) fd[off + --fmin - 1] = -1; else ++fmin;
    if (fmax < dmax) fd[off + ++fmax + 1] = -1; else --fmax;
    for (let d = fmax; d >= fmin; d -= 2) {
      const tlo = fd[off + d - 1];
      const thi = fd[off + d + 1];
      let px = tlo < thi ? thi : tlo + 1;
      let py = px - d;
      while (px < xlim && py < ylim && x[px] === y[py]) { px++; py++; }
      fd[off + d] = px;
      if (odd && bmin <= d && d <= bmax && bd[off + d] <= px) return { xmid: px, ymid: py, loMinimal: true, hiMinimal: true };
    }
    if (bmin > dmin) bd[off + --bmin - 1] = BIG; else ++bmin;
    if (bmax < dmax) bd[off + ++bmax + 1] = BIG; else --bmax;
    for (let d = bmax; d >= bmin; d -= 2) {
      const tlo = bd[off + d - 1];
      const thi = bd[off + d + 1];
      let px = tlo < thi ? tlo : thi - 1;
      let py = px - d;
      while (xoff < px && yoff < py && x[px - 1] === y[py - 1]) { px--; py--; }
      bd[off + d] = px;
      if (!odd && fmin <= d && d <= fmax && px <= fd[off + d]) return { xmid: px, ymid: py, loMinimal: true, hiMinimal: true };
    }
    if (minimal || c < tooExpensive) continue;
    // Over the cap: split at the forward or backward path that got furthest.
    let fxybest = -1, fxbest = xoff;
    for (let d = fmax; d >= fmin; d -= 2) {
      let px = Math.min(fd[off + d], xlim);
      let py = px - d;
      if (ylim < py) { px = ylim + d; py = ylim; }
      if (fxybest < px + py) { fxybest = px + py; fxbest = px; }
    }
    let bxybest = BIG, bxbest = xlim;
    for (let d = bmax; d >= bmin; d -= 2) {
      let px = Math.max(xoff, bd[off + d]);
      let py = px - d;
      if (py < yoff) { px = yoff + d; py = yoff; }
      if (px + py < bxybest) { bxybest = px + py; bxbest = px; }
    }
    if (xlim + ylim - bxybest < fxybest - (xoff + yoff)) return { xmid: fxbest, ymid: fxybest - fxbest, loMinimal: true, hiMinimal: false };
    return { xmid: bxbest, ymid: bxybest - bxbest, loMinimal: false, hiMinimal: true };
  }
}
