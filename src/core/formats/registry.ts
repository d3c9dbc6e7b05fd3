import type { FormatAdapter } from './adapter';
// One import and one list entry per format; nothing else needs to know a format exists.
import { openAiChatAdapter } from './openaiChat';

export const FORMAT_ADAPTERS: readonly FormatAdapter[] = [
  openAiChatAdapter,
];
