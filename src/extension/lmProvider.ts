import * as vscode from 'vscode';
import type { CompletionRequest, CompletionResult, ModelProvider } from '../core/llm/provider';
import { DEFAULT_MAX_OUTPUT_TOKENS, replyCapChars } from '../core/llm/replyChecks';

/**
 * A ModelProvider over VS Code's Language Model API, so a user with a chat model in VS Code
 * (Copilot or a bring-your-own-key provider) needs no API key. Must be created from a command:
 * selecting a model may show VS Code's own consent dialog.
 */
export async function selectLmProvider(family?: string): Promise<ModelProvider | undefined> {
  const models = await vscode.lm.selectChatModels(family ? { family } : undefined);
  if (models.length === 0) return undefined;
  return new LmProvider(models[0]);
}

class LmProvider implements ModelProvider {
  readonly endpoint: string;
  readonly model: string;

  constructor(private readonly chat: vscode.LanguageModelChat) {
    this.endpoint = `VS Code language model (${chat.vendor})`;
    this.model = chat.id;
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    // The LM API has no system role: instructions travel as the first user message.
    const messages = request.messages.map((m) => m.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(m.content)
      : vscode.LanguageModelChatMessage.User(m.content));
    const cancel = new vscode.CancellationTokenSource();
    request.signal?.addEventListener('abort', () => cancel.cancel());
    const options: vscode.LanguageModelChatRequestOptions = {
      justification: 'Agent Trace Lens summarizes the trajectory range you chose.',
    };
    if (request.tool) {
      options.tools = [{ name: request.tool.name, description: request.tool.description, inputSchema: request.tool.parameters }];
      options.toolMode = vscode.LanguageModelChatToolMode.Required;
    }
    try {
      const response = await this.chat.sendRequest(messages, options, cancel.token);
      let text = '';
      let toolArguments: Record<string, unknown> | undefined;
      // The LM API takes no output limit of its own: the reply is read only so far.
      const maxOutputTokens = request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
      const cap = replyCapChars(maxOutputTokens);
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          if (text.length + part.value.length > cap) {
            cancel.cancel();
            throw new Error(`The reply from ${this.model} is far larger than asked (${maxOutputTokens} tokens): stopped reading after ${text.length.toLocaleString('en-US')} characters.`);
          }
          text += part.value;
          request.onDelta?.(part.value);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolArguments = part.input as Record<string, unknown>;
        }
      }
      if (request.tool && !toolArguments) throw new Error(`${this.model} did not call ${request.tool.name} as asked.`);
      return { text, toolArguments, model: this.model };
    } catch (e) {
      if (e instanceof vscode.LanguageModelError && e.code === vscode.LanguageModelError.NoPermissions.name) {
        throw new Error(`Permission to use ${this.model} was denied. Allow it when VS Code asks, or choose another provider.`);
      }
      throw e;
    } finally {
      cancel.dispose();
    }
  }
}
