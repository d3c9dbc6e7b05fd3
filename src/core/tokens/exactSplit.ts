// A huge text cut into parts whose token counts add up to the text's count, so that each part can
// go to a worker on its own: posting one 200 MB string copies it twice more (the message and the
// worker's string).
//
// A cut is exact where both encodings' pre-tokenizers end one piece and start the next whatever
// comes before or after (tiktoken counts each piece alone, see pieceCount.ts):
// - between a newline and a letter: the newline ends a whitespace or punctuation piece, and the
//   letter pattern's optional leading character can never be `\r` or `\n`;
// - before a space that follows a non-space and precedes a letter: no piece takes a space after a
//   non-space, and ` word` is the letter pattern's own start.
// `tokens.exactSplit.test.ts` holds the sum of the parts to the whole on corpus text and random
// strings of every character class.

import { WHITE_SPACE } from './pieceCount';

// Whitespace as the pre-tokenizers read it (Unicode's White_Space), not JavaScript's `\s`.
const CUT = new RegExp(`(?<=\\n)(?=\\p{L})|(?<=[^${WHITE_SPACE}])(?= \\p{L})`, 'u');
/** How far past a target position a cut is looked for before the rest is left whole. */
const SEARCH_CHARS = 1024 * 1024;

/** `text` in parts of about `maxChars` (never cut where a count would change); one part when short. */
export function splitForCounting(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const parts: string[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    const from = start + maxChars;
    const window = text.slice(from, from + SEARCH_CHARS);
    const m = CUT.exec(window);
    // No cut in reach (a megabyte of base64, say): the rest goes whole rather than be miscounted.
    if (!m) break;
    const cut = from + m.index;
    parts.push(text.slice(start, cut));
    start = cut;
  }
  parts.push(text.slice(start));
  return parts;
}
