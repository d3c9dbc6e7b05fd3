// What an agent's own message states, as opposed to what it means to do next: the opening
// statements of a message written between calls, and how a long message ended. Both only fill the
// room a summary has left (render.ts, `within`).

import { bounded, paragraph } from './hygiene';

// How a message signs off without saying anything of the run: "Let me know if…", "Feel free to…".
const SIGN_OFF = /^(?:let me know|feel free|if you (?:have|need|want|'d like)|happy to|hope this helps|would you like|shall i|do you want)\b/i;

/** The last sentence of a message that states something, when it is not in its opening 300 characters. */
export function closingStatementOf(text: string): string | undefined {
  const lines = text.slice(-1500).split(/\n+/).map((line) => paragraph(line)).filter((line) => line !== '');
  // A message that ends with a list ends with what introduced it: "All four poems are now complete:".
  let end = lines.length;
  while (end > 0 && LIST_ITEM.test(lines[end - 1])) end--;
  const lead = end < lines.length && end > 0 ? lines[end - 1] : undefined;
  if (lead && /[:：]$/.test(lead) && !/^#/.test(lead) && lead.split(/\s+/).length >= 4) {
    const s = lead.replace(/[:：]$/, '');
    return statesSomething(s) && !paragraph(text.slice(0, 300)).includes(s) ? s : undefined;
  }
  // Lines first (a rule `---` or a heading ends what came before it), then sentences; markup goes.
  const sentences = lines.flatMap((line) => line.replace(/^(?:[-=*_~]{3,}|[#>]+|[-*+]|\d+[.)])\s*/, '').split(SENTENCE_BREAK))
    .map((x) => x.trim()).filter((x) => /[\p{L}\p{N}]/u.test(x));
  for (let i = sentences.length - 1; i >= Math.max(0, sentences.length - 3); i--) {
    const s = sentences[i];
    if (!statesSomething(s) || /^[|`]/.test(s)) continue;
    return paragraph(text.slice(0, 300)).includes(s) ? undefined : s;
  }
  return undefined;
}

const LIST_ITEM = /^(?:[-*+•]|\d+[.)])\s/;
// Where one sentence ends and the next begins.
const SENTENCE_BREAK = /(?<=[.!?。])\s+/;

/** A sentence that states something: not what comes next, a sign-off, a question or a link. */
function statesSomething(s: string): boolean {
  return s.length >= 15 && s.length <= 240 && !INTENTION.test(s) && !SIGN_OFF.test(s) && !/\?$/.test(s) && !/\]\(https?:|^\[?https?:\/\//.test(s);
}

// What the agent means to do next ("Let me check…", "Now I'll run…"): not what it found.
export const INTENTION = /^(?:(?:now|next|first|then|so|ok(?:ay)?|great|perfect|good|alright|excellent)[,!.:]?\s+)*(?:let me|let's|let us|i'll|i will|i'm going to|i am going to|i need to|i should|i want to|we need to|we'll|we will)\b/i;

/** The opening statements of an agent's message, up to about 200 characters; '' when it only says what it means to do. */
export function statementsOf(text: string): string {
  const out: string[] = [];
  let length = 0;
  for (const sentence of sentencesOf(text.slice(0, 2000))) {
    const s = sentence.trim();
    if (s.length < 15 || INTENTION.test(s) || /[:：]$/.test(s) && s.length < 40) continue;
    out.push(s);
    length += s.length;
    if (length >= 120 || out.length === 2) break;
  }
  return out.length ? bounded(out.join(' '), 220) : '';
}

/**
 * The sentences of a message, line by line: a list's number (`1. Create …`) is no sentence end,
 * and a sentence that introduces a list ("you'll need to either:") goes on with its first item.
 */
export function sentencesOf(text: string): string[] {
  const lines = text.replace(/```[\s\S]*?(?:```|$)/g, '\n').split('\n').map((line) => paragraph(line)).filter((line) => line !== '');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const sentences = lines[i].replace(LIST_ITEM, '').split(SENTENCE_BREAK);
    const next = lines[i + 1];
    if (next !== undefined && LIST_ITEM.test(next) && /[:：]$/.test(sentences[sentences.length - 1])) {
      sentences[sentences.length - 1] += ` ${next.replace(LIST_ITEM, '').split(SENTENCE_BREAK)[0]}`;
      i++;
    }
    out.push(...sentences);
  }
  return out;
}
