// A stand-in for the parts of the `vscode` module that the vscode.lm provider touches, so its
// mapping (roles, forced tool, streaming, permission errors) runs under plain Node. Installed by
// intercepting `require('vscode')`; the real API exists only inside VS Code.
import Module = require('node:module');

export class LanguageModelTextPart { constructor(readonly value: string) {} }
export class LanguageModelToolCallPart { constructor(readonly callId: string, readonly name: string, readonly input: object) {} }
export class LanguageModelError extends Error {
  static readonly NoPermissions = { name: 'NoPermissions' };
  constructor(message: string, readonly code: string) { super(message); }
}

export interface SentRequest {
  messages: { role: string; content: string }[];
  options: { justification?: string; tools?: { name: string }[]; toolMode?: number };
  cancelled: () => boolean;
}

/** A chat model that answers with scripted parts and records what it was sent. */
export function fakeChatModel(parts: unknown[] | (() => never), sent: SentRequest[]) {
  return {
    id: 'fake-gpt', vendor: 'test', family: 'fake', version: '1', name: 'Fake', maxInputTokens: 64000,
    async sendRequest(messages: { role: string; content: string }[], options: SentRequest['options'], token: { isCancellationRequested: boolean }) {
      sent.push({ messages, options, cancelled: () => token.isCancellationRequested });
      if (typeof parts === 'function') parts();
      return { stream: (async function* () { for (const p of parts as unknown[]) yield p; })() };
    },
  };
}

export function installFakeVscode(models: unknown[]): void {
  const fake = {
    lm: { selectChatModels: async () => models },
    LanguageModelChatMessage: {
      User: (content: string) => ({ role: 'user', content }),
      Assistant: (content: string) => ({ role: 'assistant', content }),
    },
    LanguageModelChatToolMode: { Auto: 1, Required: 2 },
    LanguageModelTextPart,
    LanguageModelToolCallPart,
    LanguageModelError,
    CancellationTokenSource: class {
      token = { isCancellationRequested: false };
      cancel() { this.token.isCancellationRequested = true; }
      dispose() {}
    },
  };
  const load = (Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown })._load;
  (Module as unknown as { _load: typeof load })._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fake : load.call(this, request, ...rest);
  };
}
