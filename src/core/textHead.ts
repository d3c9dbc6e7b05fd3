// Labels, previews and summary lines need the first few hundred characters of a text once it is
// cleaned (controls out, white space collapsed). Cleaning a 200 MB tool output whole to keep 120
// characters copied it several times over; cleaning a growing prefix gives the same characters.

/** Room left past what is needed, so that whatever the prefix cut in two (an escape sequence, a
 * run of spaces, a surrogate pair) lies beyond the characters kept. */
export const MARGIN = 256;

/**
 * `transform(text)`, or enough of its start: `transform` must only remove or collapse characters
 * (never look ahead further than `MARGIN`), and the head returned has either all of the result
 * (`whole`) or more than `need` characters of it.
 */
export function transformedHead(text: string, need: number, transform: (text: string) => string): { head: string; whole: boolean } {
  for (let n = Math.max(4096, 2 * (need + MARGIN)); ; n *= 4) {
    const end = prefixEnd(text, n);
    if (end >= text.length) return { head: transform(text), whole: true };
    const head = transform(text.slice(0, end));
    if (head.length > need + MARGIN) return { head, whole: false };
  }
}

/**
 * About `n` characters, to the end of the line when it ends within as many again: a carriage
 * return redraws its line, so what a line shows depends on all of it.
 */
export function prefixEnd(text: string, n: number): number {
  if (n >= text.length) return text.length;
  const newline = text.slice(n, 2 * n).indexOf('\n');
  return newline === -1 ? n : n + newline + 1;
}
