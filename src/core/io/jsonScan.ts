// Small hand-written scanners over JSON text. JSON.parse gives neither positions nor partial
// results, and a trajectory file is often cut off mid-write; these fill exactly those two gaps.

const OPENERS: Record<string, string> = { '{': '}', '[': ']' };

export interface RepairedJson {
  value: unknown;
  /** Byte-ish offset (UTF-16 index) where the usable text ends. */
  cutAt: number;
}

/**
 * Parses a JSON document that was cut off mid-write. Keeps every complete element of the
 * outermost array still open at the break (the event list, in every format we know) and closes
 * the containers around it. Returns undefined when nothing complete can be salvaged.
 */
export function repairTruncatedJson(text: string): RepairedJson | undefined {
  const stack: string[] = [];
  // Cut points: positions where everything before is complete at `depth`.
  const cutPos: number[] = [];
  const cutDepth: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c);
    else if (c === '}' || c === ']') {
      stack.pop();
      cutPos.push(i + 1);
      cutDepth.push(stack.length);
    } else if (c === ',') {
      cutPos.push(i);
      cutDepth.push(stack.length);
    }
  }
  if (stack.length === 0) return undefined; // complete (or garbage): not a truncation
  const arrayDepth = stack.indexOf('[') + 1; // depth inside the outermost open array
  const tryCut = (k: number): RepairedJson | undefined => {
    const depth = cutDepth[k];
    const closers = stack.slice(0, depth).reverse().map((o) => OPENERS[o]).join('');
    try {
      return { value: JSON.parse(text.slice(0, cutPos[k]) + closers), cutAt: cutPos[k] };
    } catch {
      return undefined;
    }
  };
  if (arrayDepth > 0) {
    for (let k = cutPos.length - 1; k >= 0; k--) {
      if (cutDepth[k] < arrayDepth) break;
      if (cutDepth[k] === arrayDepth) {
        const repaired = tryCut(k);
        if (repaired) return repaired;
      }
    }
  }
  for (let k = cutPos.length - 1; k >= 0; k--) {
    if (cutDepth[k] > stack.length) continue;
    const repaired = tryCut(k);
    if (repaired) return repaired;
  }
  return undefined;
}

/** 1-based line number of a UTF-16 offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Parses a JSON Pointer (RFC 6901) into its tokens. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function pointerOf(...tokens: (string | number)[]): string {
  return tokens.map((t) => '/' + String(t).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Finds where the value at `pointer` starts in `text`, without parsing the whole document into
 * objects. Returns the UTF-16 offset, or undefined if the pointer does not resolve.
 */
export function offsetOfPointer(text: string, pointer: string): number | undefined {
  const tokens = pointerTokens(pointer);
  let i = skipWs(text, 0);
  for (const token of tokens) {
    const open = text[i];
    if (open === '[') {
      const want = Number(token);
      i = skipWs(text, i + 1);
      for (let n = 0; ; n++) {
        if (text[i] === ']' || i >= text.length) return undefined;
        if (n === want) break;
        i = skipWs(text, skipValue(text, i));
        if (text[i] === ',') i = skipWs(text, i + 1);
      }
    } else if (open === '{') {
      i = skipWs(text, i + 1);
      for (;;) {
        if (text[i] !== '"') return undefined;
        const keyEnd = skipString(text, i);
        const key = JSON.parse(text.slice(i, keyEnd)) as string;
        i = skipWs(text, keyEnd);
        if (text[i] !== ':') return undefined;
        i = skipWs(text, i + 1);
        if (key === token) break;
        i = skipWs(text, skipValue(text, i));
        if (text[i] === ',') i = skipWs(text, i + 1);
      }
    } else {
      return undefined;
    }
  }
  return i;
}

function skipWs(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

function skipString(text: string, i: number): number {
  for (i = i + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') return i + 1;
  }
  return i;
}

/** Returns the offset just past the value starting at `i`. */
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text[i];
      if (d === '"') i = skipString(text, i) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++;
  return i;
}
