import * as vscode from 'vscode';
import { displayEndpoint } from '../../core/llm/openaiProvider';
import { apiKeySecretName, readLlmSettings } from './llmSettings';

/** "Set API Key" / "Clear API Key": the key goes to SecretStorage, per endpoint, and nowhere else. */
export function registerApiKeyCommands(secrets: vscode.SecretStorage): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('agentTraceLens.setApiKey', async () => {
      const { baseUrl } = readLlmSettings();
      const key = await vscode.window.showInputBox({
        title: `API key for ${displayEndpoint(baseUrl)}`,
        prompt: 'Stored in VS Code\'s secret storage for this endpoint only; never written to settings or logs. Change the endpoint with the setting agentTraceLens.llm.baseUrl.',
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? 'Paste the key, or press Escape to cancel.' : /\s/.test(v.trim()) ? 'A key has no spaces.' : undefined),
      });
      if (!key) return;
      await secrets.store(apiKeySecretName(baseUrl), key.trim());
      void vscode.window.showInformationMessage(`API key saved for ${displayEndpoint(baseUrl)}.`);
    }),
    vscode.commands.registerCommand('agentTraceLens.clearApiKey', async () => {
      const { baseUrl } = readLlmSettings();
      await secrets.delete(apiKeySecretName(baseUrl));
      void vscode.window.showInformationMessage(`API key removed for ${displayEndpoint(baseUrl)}.`);
    }),
  ];
}
