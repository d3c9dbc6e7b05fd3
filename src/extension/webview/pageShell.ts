import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * The HTML every panel of ours starts from: a strict Content-Security-Policy whose only script is
 * the panel's bundle, allowed by a fresh nonce; stylesheets and images only from the extension.
 * The bundle renders everything else from posted data, as text.
 */
export function webviewPage(webview: vscode.Webview, page: { title: string; script: vscode.Uri; styles: readonly vscode.Uri[]; hostState?: unknown }): string {
  const nonce = randomBytes(16).toString('base64');
  const csp = `default-src 'none'; style-src ${webview.cspSource}; img-src ${webview.cspSource}; script-src 'nonce-${nonce}'; font-src ${webview.cspSource};`;
  const links = page.styles.map((s) => `<link rel="stylesheet" href="${webview.asWebviewUri(s).toString()}">`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${links}
<title>${page.title}</title>
</head>
<body>
<main id="app"${page.hostState === undefined ? '' : ` data-host-state="${attribute(JSON.stringify(page.hostState))}"`}></main>
<script nonce="${nonce}" src="${webview.asWebviewUri(page.script).toString()}"></script>
</body>
</html>`;
}

/** Text made safe inside a double-quoted HTML attribute. */
function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
