// What a configuration file the agent read sets, or a Markdown file's front matter: its `key:
// value` lines (`user_name: Edouard`, `communication_language: French`, `"version": "^4.2.0"`). The agent acts on them later (it
// answered in French), yet a file's first lines are mostly comments. They only fill the room a
// summary has left (render.ts, `within`).

import { cleanText } from './hygiene';
import { isHarnessLine, LINE_NUMBER } from './outcomes';

// Files whose lines are settings: YAML, TOML, INI, .env, properties, JSON manifests.
const CONFIG_FILE = /\.(?:ya?ml|toml|ini|cfg|conf|properties|json|env)$|(?:^|\/)\.env(?:\.[\w-]+)?$/i;
// `key: value`, `key = value`, `"key": "value",`; the key a plain name.
// A quoted key is whole up to its quote (npm's `"dev:docs": "…"`, `"db:generate"`); a bare one is a word.
const SETTING = /^(?:"([^"\s]{1,60})"|'([^'\s]{1,60})'|(\w[\w.-]{0,60}))\s*[:=]\s*(.*?)\s*,?$/;
// A value that opens a block, a list or a map, or refers elsewhere, says nothing by itself (a quoted one is plain).
const NOT_SCALAR = /^(?:[[{|>&*!]|#)/;
// What must never be copied into a summary, whatever the file says.
const SECRET_KEY = /secret|token|passw(?:or)?d|passwd|api[_-]?key|private[_-]?key|credential|auth/i;
const VALUE_CHARS = 120;
const TEMPLATE = /\{[\w-]+\}|\$\{|\{\{/;

interface Setting { key: string; value: string; at: number; indent: number; list?: true }

function isConfigFile(file: string): boolean {
  return CONFIG_FILE.test(file);
}

/**
 * The settings a read of `file` showed, at most `max`, in file order: those whose value is rarest
 * in the file first (a status list of forty `backlog`s tells by its one `review`), then those that
 * say most (an `intent`, a list of `constraints`); templates and secrets never. The rows of a list of records
 * (`- type: plan_step`, `index: 1`) are data, not settings.
 */
export function settingsOf(file: string, text: string, max = 8): string[] {
  // Elsewhere only a front matter (`---` lines around a task file's or a skill's settings) is read.
  const config = isConfigFile(file);
  let front: 'before' | 'in' | undefined = config ? undefined : 'before';
  const found: Setting[] = [];
  let record = -1; // indent of the `- key: value` item whose fields are being passed over
  let open: Setting | undefined; // a setting whose value may go on (a folded line, a list of scalars)
  for (const raw of cleanText(text).split('\n')) {
    if (found.length >= 2000) break;
    // A read tool's line number (`     3→`) goes; the indentation after it stays.
    const number = LINE_NUMBER.exec(raw.trimStart());
    const line = number ? raw.trimStart().slice(number[0].length) : raw;
    const body = line.trim();
    if (!body || body.startsWith('#') || isHarnessLine(body)) continue;
    if (front === 'before' && body !== '---') return [];
    if (front && body === '---') {
      if (front === 'in') break;
      front = 'in';
      continue;
    }
    const indent = line.length - line.trimStart().length;
    if (record >= 0 && indent > record) continue;
    record = -1;
    const item = /^-\s+(.*)$/.exec(body);
    if (item && SETTING.test(item[1])) { record = indent; open = undefined; continue; }
    if (item && open && open.indent <= indent && (open.value === '' || open.list)) {
      open.value = open.value ? `${open.value}; ${unquoted(item[1])}` : unquoted(item[1]);
      open.list = true;
      continue;
    }
    const m = item ? undefined : SETTING.exec(body);
    if (!m) {
      // A long YAML value folded onto the next, deeper line.
      if (open && !open.list && open.value && indent > open.indent) open.value += ` ${body}`;
      else open = undefined;
      continue;
    }
    const key = m[1] ?? m[2] ?? m[3];
    const written = m[4].replace(/\s+#(?:\s.*)?$/, '');
    if (SECRET_KEY.test(key) || (written && NOT_SCALAR.test(written))) { open = undefined; continue; }
    open = { key, value: unquoted(written), at: found.length, indent };
    found.push(open);
  }
  // A value that is still a template (`{project-root}/docs`) is not what the setting is.
  const kept = found.filter((f) => f.value && f.value.length <= VALUE_CHARS * 2 && !TEMPLATE.test(f.value));
  const seen = new Map<string, number>();
  for (const f of kept) seen.set(f.value, (seen.get(f.value) ?? 0) + 1);
  const words = (f: Setting) => Math.min(3, f.value.split(/\s+/).length);
  return kept.sort((a, b) => seen.get(a.value)! - seen.get(b.value)! || words(b) - words(a) || a.at - b.at).slice(0, max)
    .sort((a, b) => a.at - b.at).map((f) => `${f.key}: ${f.value.length > VALUE_CHARS ? `${f.value.slice(0, VALUE_CHARS - 2)} …` : f.value}`);
}

function unquoted(value: string): string {
  // A JSON string says what it holds once its escapes are read (`\"$(pwd)/docs\"`).
  if (/^".*"$/.test(value) && value.includes('\\')) {
    try { return (JSON.parse(value) as string).trim(); } catch { /* not JSON: as YAML would */ }
  }
  return value.replace(/^(["'])(.*)\1$/, '$2').trim();
}
