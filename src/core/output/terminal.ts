// Text from a log on a terminal: a tool name or a summary may carry escape sequences that clear
// the screen, retitle the window, write the clipboard (OSC 52) or reorder what is shown (bidi
// overrides). Everything the CLI prints goes through `forTerminal`, which shows such characters
// as `\uXXXX` instead of sending them: visible, harmless, and still valid inside a JSON string.

/** C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides and isolates. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function forTerminal(text: string): string {
  return text.replace(UNSAFE, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** ANSI sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ST), other two-character escapes, and their C1 forms. */
// eslint-disable-next-line no-control-regex
const ANSI = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;

/** Controls (newlines and tabs too) and bidi marks, for one-line labels. */
// eslint-disable-next-line no-control-regex
const LABEL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text for a tree label or description: colour codes and other escape sequences removed, control
 * characters and bidi marks dropped (newlines and tabs become spaces).
 */
export function plainLabel(text: string): string {
  return text.replace(ANSI, '').replace(/[\n\t\r]/g, ' ').replace(LABEL_UNSAFE, '');
}
