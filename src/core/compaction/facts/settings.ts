// What a configuration file the agent read sets: its `key: value` lines (`user_name: Edouard`,
// `communication_language: French`, `"version": "^4.2.0"`). The agent acts on them later (it
// answered in French), yet a file's first lines are mostly comments. They only fill the room a
// summary has left (render.ts, `within`).

import { cleanText } from './hygiene';
import { eachOutputLine, LINE_NUMBER } from './outcomes';

// Files whose lines are settings: YAML, TOML, INI, .env, properties, JSON manifests.
const CONFIG_FILE = /\.(?:ya?ml|toml|ini|cfg|conf|properties|json|env)$|(?:^|\/)\.env(?:\.[\w-]+)?$/i;
// `key: value`, `key = value`, `"key": "value",`, `- key: value`; the key a plain name.
const SETTING = /^(?:-\s+)?["']?(\w[\w.-]{0,60})["']?\s*[:=]\s*(.+?)\s*,?$/;
// A value that opens a block, a list or a map, or refers elsewhere, says nothing by itself (a quoted one is plain).
const NOT_SCALAR = /^(?:[[{|>&*!]|#)/;
// What must never be copied into a summary, whatever the file says.
const SECRET_KEY = /secret|token|passw(?:or)?d|passwd|api[_-]?key|private[_-]?key|credential|auth/i;

function isConfigFile(file: string): boolean {
  return CONFIG_FILE.test(file);
}

/**
 * The settings a read of `file` showed, at most `max`, in file order: those whose value is rarest
 * in the file first (a status list of forty `backlog`s tells by its one `review`), secrets never.
 */
export function settingsOf(file: string, text: string, max = 8): string[] {
  if (!isConfigFile(file)) return [];
  const found: { key: string; value: string; at: number }[] = [];
  for (const raw of eachOutputLine(cleanText(text), false)) {
    const m = SETTING.exec(raw.replace(LINE_NUMBER, '').trim());
    if (!m) continue;
    // A YAML or TOML comment after the value (`story_file: "" # auto-discovered if empty`) is not it.
    const written = m[2].replace(/\s+#(?:\s.*)?$/, '');
    const value = written.replace(/^(["'])(.*)\1$/, '$2').trim();
    if (!value || value.length > 80 || NOT_SCALAR.test(written) || SECRET_KEY.test(m[1])) continue;
    found.push({ key: m[1], value, at: found.length });
    if (found.length >= 2000) break;
  }
  const seen = new Map<string, number>();
  for (const f of found) seen.set(f.value, (seen.get(f.value) ?? 0) + 1);
  return found.sort((a, b) => seen.get(a.value)! - seen.get(b.value)! || a.at - b.at).slice(0, max)
    .sort((a, b) => a.at - b.at).map((f) => `${f.key}: ${f.value}`);
}
