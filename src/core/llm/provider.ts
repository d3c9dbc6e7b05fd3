// The model-provider seam: one implementation over the `openai` package (any OpenAI-compatible
// endpoint), one over VS Code's `vscode.lm` (in src/extension, injected into the core).

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  /** When set, the model is asked to answer by calling this one tool (forced function call). */
  tool?: ToolSpec;
  temperature?: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** Called with each piece of streamed text as it arrives. */
  onDelta?: (text: string) => void;
}

export interface CompletionResult {
  text: string;
  /** Arguments of the forced tool call, parsed. */
  toolArguments?: Record<string, unknown>;
  usage?: { inputTokens: number; outputTokens: number };
  model: string;
  /** Why the model stopped, as the endpoint reports it (`stop`, `length`, `tool_calls`, ...). */
  finishReason?: string;
  /** Secrets the provider removed from the messages before sending them (see llm/redact.ts). */
  redactions?: { count: number; kinds: Record<string, number> };
}

export interface ModelProvider {
  /** Where the content goes, for the consent prompt and the report: a base URL or "VS Code: <model>". */
  readonly endpoint: string;
  readonly model: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
