// Secret redaction: applied to every piece of content before it is sent to a model, so a key
// pasted into a trajectory (or echoed by a tool) never leaves the machine. Each removed value is
// replaced by a marker naming what it was, e.g. `[REDACTED:github-token]`, and counted.
//
// The rules favour specific, well-known token shapes. The generic `password=` / `token:` rule
// checks the value so that ordinary code (`token = tokens[i]`, `password: string`) is left alone;
// hex hashes (git SHAs, sha256) and UUIDs match no rule.

export interface RedactionResult {
  text: string;
  /** Number of values replaced. */
  count: number;
  /** Count per kind of secret, e.g. `{ 'github-token': 2 }`. */
  kinds: Record<string, number>;
}

export const REDACTED_PREFIX = '[REDACTED:';

export function marker(kind: string): string {
  return `${REDACTED_PREFIX}${kind}]`;
}

interface Rule {
  kind: string | ((match: RegExpExecArray) => string);
  pattern: RegExp;
  /** Capture group holding the secret (or a function choosing it); the rest of the match is kept. Default: whole match. */
  group?: number | ((match: RegExpExecArray) => number);
  /** Extra check on the secret; false leaves the match untouched. */
  accept?: (secret: string, match: RegExpExecArray) => boolean;
  /** Texts one of which the match must contain: a cheap check that skips the pattern on most text. */
  needs?: string[];
}

const hasDigit = (s: string) => /\d/.test(s);
const hasUpper = (s: string) => /[A-Z]/.test(s);
const hasLower = (s: string) => /[a-z]/.test(s);

/** Generated keys mix cases and digits; kebab-case names such as `sk-learn-style-api` do not. */
const looksGenerated = (s: string) => hasDigit(s) && hasUpper(s) && hasLower(s);

// Left boundary for token prefixes: not inside a longer word or identifier.
const B = '(?<![A-Za-z0-9_-])';
// Right boundary: the token does not continue.
const E = '(?![A-Za-z0-9_-])';

const SECRET_WORDS =
  'password|passwd|passphrase|pwd|secret|client[_-]?secret|secret[_-]?key|private[_-]?key|' +
  'api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token';

function kindOfKey(key: string): string {
  const k = key.toLowerCase();
  if (/pass|pwd/.test(k)) return 'password';
  if (/api[_-]?key|apikey|access[_-]?key/.test(k)) return 'api-key';
  if (/token/.test(k)) return 'token';
  return 'secret';
}

const PLACEHOLDER =
  /^(?:\$|%|<|\{\{|\[REDACTED|\*{3,}|x{4,}|\.{3}|…)|^(?:null|none|nil|undefined|true|false|string|str|bytes|int|number|any|optional|required|redacted|hidden|changeme|example|placeholder|your[_-].*|my[_-].*)$/i;

/**
 * A value of a `key = value` assignment that is a real literal, not code, prose or a placeholder.
 * `yamlLine`: `key: value` where the key starts its line and the value ends it.
 */
function isLiteralSecret(value: string, quoted: boolean, key: string, yamlLine = false): boolean {
  if (value.length < 4 || PLACEHOLDER.test(value) || /[`<>]/.test(value)) return false;
  if (/^\d+$/.test(value)) return false; // counts such as "token": 1234
  if (quoted) return !/\s/.test(value); // a sentence in quotes is prose, not a password
  // Unquoted: env-style keys (DB_PASSWORD=...) take any value.
  if (key === key.toUpperCase() && /[A-Z]/.test(key)) return true;
  const generated = value.length >= 16 && (value.match(/\d/g) ?? []).length >= 3 && /[A-Za-z]/.test(value);
  // Member paths, indexing and calls are code (token = tokens[i], password=getpass()).
  if (/[()[\]]/.test(value) || /^[A-Za-z_$][\w$]*\.[\w$.]+$/.test(value)) return generated;
  // A YAML line (`password: hunter2`) takes a plain word; in code and prose a plain word is a
  // variable or ordinary text (token = tok, "the token: see below").
  if (yamlLine) return true;
  if (/^[A-Za-z_$][\w$]*$/.test(value)) return generated;
  return /[\d!@#%^&*+=~?]/.test(value) || generated;
}

/** Where the identifier (maybe quoted) that ends at `end` starts. */
function identifierStart(text: string, end: number): number {
  let i = end;
  while (i > 0 && /[A-Za-z0-9_$]/.test(text[i - 1])) i--;
  if (i > 0 && (text[i - 1] === '"' || text[i - 1] === "'")) i--;
  if (i > 0 && text[i - 1] === '\\') i--;
  return i;
}

/** True when the match starts its line (after indentation or a YAML "- ") and nothing but spaces follow it. */
function isWholeConfigLine(m: RegExpExecArray, start = m.index): boolean {
  const before = m.input.slice(m.input.lastIndexOf('\n', start - 1) + 1, start);
  const rest = m.input.slice(m.index + m[0].length);
  const after = rest.slice(0, rest.search(/\n|$/));
  return /^\s*(?:-\s+|export\s+)?$/.test(before) && /^\s*(?:#.*)?$/.test(after);
}

/** Base64 that decodes to printable `user:password` text: what HTTP Basic credentials are. */
function isBasicCredential(v: string): boolean {
  if (v.length % 4 === 1) return false;
  let decoded: string;
  try {
    decoded = Buffer.from(v, 'base64').toString('utf8');
  } catch {
    return false;
  }
  return decoded.length >= 3 && /^[\x20-\x7e]+$/.test(decoded) && decoded.includes(':') && !decoded.startsWith(':');
}

// A line break, also JSON-escaped (`\n`) when the text is itself a JSON string.
const NL = '(?:\\r?\\n|\\\\r?\\\\n)';
// Whitespace between words on one line, or a line break (escaped or not): multi-line config files.
const SEP = `(?:[ \\t]+|${NL})+`;
// Value forms shared by the key = value rules: double-quoted (maybe JSON-escaped), single-quoted, bare.
const VALUE = `(?:\\\\?"([^"\\n\\\\]*)\\\\?"|'([^'\\n]*)'|([^\\s"',;{})\\\\]+))`;
// Last words of a camelCase / PascalCase key (`dbPassword`, `sessionToken`, `"SessionToken"`, `SecretAccessKey`).
const CAMEL_WORDS = 'Password|Passwd|Passphrase|Pwd|SecretKey|Secret|Token|ApiKey|AccessKey|PrivateKey|AuthKey|ClientSecret';

const RULES: Rule[] = [
  {
    kind: 'private-key',
    // A PEM or PGP block, also when its newlines are JSON-escaped (`\n`).
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?-----END \1-----/g,
    needs: ['PRIVATE KEY'],
  },
  {
    kind: 'private-key',
    // A block cut off before its END line (truncated logs): remove the armour headers and base64 body that follow.
    pattern: new RegExp(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\\s]|\\\\[nr]|(?:Version|Comment|Hash|Charset|Proc-Type|DEK-Info):[^\\n\\\\]*)*`, 'g'),
    needs: ['PRIVATE KEY'],
  },
  {
    kind: 'private-key',
    // A block whose BEGIN line is gone (cut at the top): the base64 lines that run into its END line.
    pattern: new RegExp(`(?:[A-Za-z0-9+/=]{16,}${NL})+(?:=[A-Za-z0-9+/]{4}${NL})?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`, 'g'),
    needs: ['PRIVATE KEY'],
  },
  {
    kind: 'putty-private-key',
    // PuTTY .ppk files: the private lines and their MAC; the public part and comment stay.
    pattern: new RegExp(`(Private-Lines:[ \\t]*\\d+${NL})((?:[A-Za-z0-9+/=]+(?:${NL}|$))+(?:Private-(?:MAC|Hash):[ \\t]*[0-9a-fA-F]+)?)`, 'g'),
    group: 2,
    needs: ['Private-Lines'],
  },
  { kind: 'anthropic-key', pattern: new RegExp(`${B}sk-ant-[A-Za-z0-9_-]{20,}${E}`, 'g') },
  { kind: 'openrouter-key', pattern: new RegExp(`${B}sk-or-v1-[a-f0-9]{32,}${E}`, 'g') },
  {
    kind: 'openrouter-key',
    pattern: new RegExp(`${B}sk-or-[A-Za-z0-9_-]{20,}${E}`, 'g'),
    accept: looksGenerated,
  },
  {
    kind: 'openai-key',
    pattern: new RegExp(`${B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}${E}`, 'g'),
    accept: (s) => looksGenerated(s.replace(/^sk-(?:proj-|svcacct-|admin-)?/, '')),
  },
  { kind: 'stripe-key', pattern: new RegExp(`${B}[sr]k_(?:live|test)_[A-Za-z0-9]{20,}${E}`, 'g') },
  { kind: 'github-token', pattern: new RegExp(`${B}gh[pousr]_[A-Za-z0-9]{36,}${E}`, 'g') },
  { kind: 'github-token', pattern: new RegExp(`${B}github_pat_[A-Za-z0-9_]{22,}${E}`, 'g') },
  { kind: 'huggingface-token', pattern: new RegExp(`${B}hf_[A-Za-z0-9]{30,}${E}`, 'g'), accept: looksGenerated },
  { kind: 'openai-key', pattern: new RegExp(`${B}sk-[a-z0-9]{32,}${E}`, 'g'), accept: (s) => hasDigit(s) && /[a-z]/.test(s.slice(3)) },
  { kind: 'gitlab-token', pattern: new RegExp(`${B}gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_-]{20,}${E}`, 'g') },
  { kind: 'pypi-token', pattern: new RegExp(`${B}pypi-[A-Za-z0-9_-]{40,}${E}`, 'g') },
  { kind: 'npm-token', pattern: new RegExp(`${B}npm_[A-Za-z0-9]{36}${E}`, 'g') },
  { kind: 'sendgrid-key', pattern: new RegExp(`${B}SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}${E}`, 'g') },
  { kind: 'google-oauth-token', pattern: new RegExp(`${B}ya29\\.[0-9A-Za-z_-]{20,}${E}`, 'g') },
  { kind: 'digitalocean-token', pattern: new RegExp(`${B}do[opr]_v1_[a-f0-9]{64}${E}`, 'g') },
  { kind: 'shopify-token', pattern: new RegExp(`${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${E}`, 'g') },
  { kind: 'docker-token', pattern: new RegExp(`${B}dckr_pat_[A-Za-z0-9_-]{20,}${E}`, 'g') },
  { kind: 'databricks-token', pattern: new RegExp(`${B}dapi[a-f0-9]{32}(?:-\\d)?${E}`, 'g') },
  { kind: 'telegram-token', pattern: /(?<![0-9:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])/g, needs: [':AA'] },
  {
    kind: 'azure-key',
    // Storage / Service Bus connection strings: AccountKey=…, SharedAccessKey=….
    pattern: /\b((?:AccountKey|SharedAccessKey|SharedAccessSignature|PrimaryKey|SecondaryKey)=)([A-Za-z0-9+/%]{20,}(?:={0,2}|(?:%3D){0,2}))/gi,
    group: 2,
    needs: ['Key=', 'key=', 'KEY=', 'Signature=', 'signature='],
  },
  {
    kind: 'azure-sas',
    // A shared access signature's signature, in a URL or a connection string.
    pattern: /([?&;]sig=)([A-Za-z0-9%+/=_-]{16,})/g,
    group: 2,
    needs: ['sig='],
  },
  { kind: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  {
    kind: 'aws-secret',
    pattern: /\b(aws_?secret_?(?:access_?)?key|secret_?access_?key)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 3,
  },
  { kind: 'slack-token', pattern: new RegExp(`${B}xox[abposr]-[A-Za-z0-9-]{10,}${E}`, 'g') },
  {
    kind: 'slack-webhook',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Za-z0-9_]+\/B[A-Za-z0-9_]+\/[A-Za-z0-9_]+/g,
  },
  { kind: 'google-api-key', pattern: new RegExp(`${B}AIza[0-9A-Za-z_-]{35}${E}`, 'g') },
  {
    kind: 'jwt',
    pattern: new RegExp(`${B}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}${E}`, 'g'),
  },
  {
    kind: 'url-password',
    // scheme://user:password@host — the user name and host stay, the password goes.
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@'"<>]*:)([^\s/?#@'"<>]+)(@)/gi,
    group: 2,
    accept: (p) => !p.startsWith(REDACTED_PREFIX) && !PLACEHOLDER.test(p),
    needs: ['://'],
  },
  {
    kind: 'bearer-token',
    pattern: /\b(Authorization["']?\s*[:=]\s*["']?(?:Bearer|Basic|Token)\s+)([A-Za-z0-9._~+/=-]{8,})/gi,
    group: 2,
    accept: (v) => !v.startsWith(REDACTED_PREFIX) && !PLACEHOLDER.test(v),
  },
  {
    kind: 'bearer-token',
    pattern: /\b(Bearer\s+)([A-Za-z0-9._~+/-]{20,}=*)/g,
    group: 2,
    accept: (v) => /\d/.test(v) && /[A-Za-z]/.test(v),
  },
  {
    kind: 'basic-auth',
    // `Basic dXNlcjpwYXNz` anywhere (a header copied without its name): only base64 of printable user:password.
    pattern: /(?<![A-Za-z0-9])(Basic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g,
    group: 2,
    accept: isBasicCredential,
  },
  {
    kind: 'cookie',
    // Cookie: / Set-Cookie: headers carry session ids: the whole value goes, the header name stays.
    pattern: /(?<![A-Za-z0-9-])((?:Set-)?Cookie\s*:\s*)([^\r\n"\\]*?=[^\r\n"\\]{4,})/gi,
    group: 2,
    accept: (v) => !PLACEHOLDER.test(v),
    needs: ['ookie', 'OOKIE'],
  },
  {
    kind: 'password',
    // mysql -pPW (the password glued to -p), also mysqldump, mysqladmin, mariadb.
    pattern: /(?<![\w-])((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p)([^\s'"\\-][^\s'"\\]*|'[^'\n]+'|"[^"\n\\]+"|\\"[^"\n\\]+\\")/g,
    group: 2,
    accept: (v) => !PLACEHOLDER.test(v.replace(/^["']|["']$/g, '')),
    needs: ['mysql', 'mariadb'],
  },
  {
    kind: 'password',
    // sshpass -p PW
    pattern: /(?<![\w-])(sshpass\s+-p\s*)([^\s'"\\]+|'[^'\n]+'|"[^"\n]+")/g,
    group: 2,
    accept: (v) => !PLACEHOLDER.test(v.replace(/^["']|["']$/g, '')),
    needs: ['sshpass'],
  },
  {
    kind: 'password',
    // .netrc: `machine HOST login USER password PW`, on one line or several (a login is needed: prose
    // such as "machine learning password manager" has none).
    pattern: new RegExp(`(machine${SEP}[^\\s\\\\]+${SEP}(?:(?:login|account)${SEP}[^\\s\\\\]+${SEP})+password[ \\t]+)([^\\s\\\\]+)`, 'g'),
    group: 2,
    // `machine` starts its line or follows a space (the pattern starts with the word, so the text is scanned fast).
    accept: (v, m) => !PLACEHOLDER.test(v) && (m.index === 0 || /[\s]/.test(m.input[m.index - 1]) || m.input.slice(m.index - 2, m.index) === '\\n'),
    needs: ['machine'],
  },
  {
    kind: (m) => kindOfKey(m[1]),
    // camelCase and PascalCase keys: dbPassword: "…", sessionToken=…, "SessionToken": "…", SecretAccessKey.
    // The pattern starts at the key's last word (a capital after a lower-case letter or digit), which
    // is rare, so the text is scanned quickly; the key's own start is found by looking back.
    pattern: new RegExp(`(${CAMEL_WORDS})(\\\\?["']?\\s*(?::=|=|:)(?!=)\\s*)${VALUE}`, 'g'),
    group: (m) => (m[3] !== undefined ? 3 : m[4] !== undefined ? 4 : 5),
    accept: (_s, m) => {
      if (!/[a-z0-9]/.test(m.input[m.index - 1] ?? '')) return false; // a word of its own: the rules above
      const quoted = m[3] !== undefined || m[4] !== undefined;
      const keyAt = identifierStart(m.input, m.index);
      const yamlLine = /[^:]:\s*$/.test(m[2]) && isWholeConfigLine(m, keyAt);
      return isLiteralSecret(m[3] ?? m[4] ?? m[5] ?? '', quoted, m[1], yamlLine);
    },
  },
  {
    kind: (m) => kindOfKey(m[1]),
    // Environment names that glue the word on: PGPASSWORD=…, REDISCLI_AUTH is rare; MYSQL_PWD is caught below.
    pattern: new RegExp(`(?<![A-Za-z0-9_])([A-Z][A-Z0-9]*(?:PASSWORD|PASSWD|TOKEN|SECRET|APIKEY)(?:_[A-Z0-9]+)*)=${VALUE}`, 'g'),
    needs: ['PASSWORD', 'PASSWD', 'TOKEN', 'SECRET', 'APIKEY'],
    group: (m) => (m[2] !== undefined ? 2 : m[3] !== undefined ? 3 : 4),
    accept: (_s, m) => isLiteralSecret(m[2] ?? m[3] ?? m[4] ?? '', m[2] !== undefined || m[3] !== undefined, m[1]),
  },
  {
    kind: (m) => kindOfKey(m[3]),
    // key = value, key: value, "key": "value", key := value; the key may carry a prefix (DB_PASSWORD).
    pattern: new RegExp(
      `(?<![A-Za-z0-9])((\\\\?["']?)((?:[A-Za-z0-9]+[_.-])*(?:${SECRET_WORDS})(?:[_.-](?:base|value|b64|hex))?)\\2\\s*(?::=|=|:)(?!=)\\s*)` +
        // Quotes may be JSON-escaped (\") when the text is itself a JSON string.
        `(?:\\\\?"([^"\\n\\\\]*)\\\\?"|'([^'\\n]*)'|([^\\s"',;{})\\\\]+))`,
      'gi',
    ),
    // The value is whichever of groups 4 (double-quoted), 5 (single-quoted), 6 (bare) matched.
    group: (m) => (m[4] !== undefined ? 4 : m[5] !== undefined ? 5 : 6),
    accept: (_s, m) => {
      const quoted = m[4] !== undefined || m[5] !== undefined;
      const yamlLine = /[^:]:\s*$/.test(m[1]) && isWholeConfigLine(m);
      return isLiteralSecret(m[4] ?? m[5] ?? m[6] ?? '', quoted, m[3], yamlLine);
    },
  },
  {
    kind: (m) => kindOfKey(m[2]),
    // Command-line flags: --password hunter2, --api-key abc...
    pattern: /(?<![A-Za-z0-9-])(--?(password|passwd|api-key|token|secret|client-secret)\s+)([^\s-][^\s]*)/gi,
    group: 3,
    accept: (v, m) => isLiteralSecret(v.replace(/^["']|["']$/g, ''), /^["']/.test(v), m[2]),
  },
];

// The `d` flag gives each group's position, so only the secret itself is replaced.
const COMPILED = RULES.map((rule) => ({ ...rule, pattern: new RegExp(rule.pattern.source, rule.pattern.flags + 'd') }));

function applyRule(rule: Rule, text: string, kinds: Record<string, number>): string {
  if (rule.needs && !rule.needs.some((n) => text.includes(n))) return text;
  const re = rule.pattern;
  re.lastIndex = 0;
  let out = '';
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const g = typeof rule.group === 'function' ? rule.group(m) : (rule.group ?? 0);
    const secret = m[g];
    const span = m.indices?.[g];
    if (secret === undefined || !span) continue;
    if (secret.startsWith(REDACTED_PREFIX)) continue;
    if (rule.accept && !rule.accept(secret, m)) continue;
    const kind = typeof rule.kind === 'function' ? rule.kind(m) : rule.kind;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    out += text.slice(last, span[0]) + marker(kind);
    last = span[1];
  }
  return out + text.slice(last);
}

/** Replaces secrets in `text` with `[REDACTED:<kind>]` markers and counts them. Idempotent. */
export function redactSecrets(text: string): RedactionResult {
  const kinds: Record<string, number> = {};
  let out = text;
  for (const rule of COMPILED) out = applyRule(rule, out, kinds);
  const count = Object.values(kinds).reduce((a, b) => a + b, 0);
  return { text: out, count, kinds };
}

/** Adds one redaction result's counts into a running total (for a whole request or run). */
export function addRedactions(total: { count: number; kinds: Record<string, number> }, part: RedactionResult): void {
  total.count += part.count;
  for (const [k, n] of Object.entries(part.kinds)) total.kinds[k] = (total.kinds[k] ?? 0) + n;
}

/** "3 (2 github-token, 1 url-password)" or "none found". */
export function describeRedactions(r: { count: number; kinds: Record<string, number> }): string {
  if (r.count === 0) return 'none found';
  const parts = Object.entries(r.kinds)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${n} ${k}`);
  return `${r.count} (${parts.join(', ')})`;
}

/** How many redaction markers a text holds: the secrets removed from it, whoever removed them. */
export function countRedactionMarkers(text: string): number {
  let n = 0;
  for (let i = text.indexOf(REDACTED_PREFIX); i >= 0; i = text.indexOf(REDACTED_PREFIX, i + REDACTED_PREFIX.length)) n++;
  return n;
}

/**
 * Every string in a JSON-like value, redacted (a copy; the value itself is untouched). For files
 * people share: exports, reports. `total` receives the counts.
 */
export function redactDeep<T>(value: T, total: { count: number; kinds: Record<string, number> }): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = redactSecrets(v);
      if (r.count) addRedactions(total, r);
      return r.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * `redactDeep` for a value that is only written out (an export): arrays and plain objects in which
 * nothing was redacted are returned as they are, not copied, so a large export with few secrets
 * is not held twice. The result must not be changed (it may share parts with `value`).
 */
export function redactShared<T>(value: T, total: { count: number; kinds: Record<string, number> }): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = redactSecrets(v);
      if (r.count) addRedactions(total, r);
      return r.text;
    }
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) continue;
        const x = walk(v[i]);
        if (x !== v[i] && !out) out = v.slice(0, i);
        if (out) out[i] = x;
      }
      if (out) out.length = v.length;
      return out ?? v;
    }
    if (v && typeof v === 'object') {
      const proto = Object.getPrototypeOf(v) as unknown;
      // Anything but a plain object is copied as redactDeep copies it (its own enumerable fields).
      if (proto !== Object.prototype && proto !== null) return redactDeep(v, total);
      const entries = Object.entries(v as Record<string, unknown>);
      let out: Record<string, unknown> | undefined;
      for (const [n, [k, x]] of entries.entries()) {
        const y = walk(x);
        if (y !== x && !out) {
          out = {};
          for (const [k0, x0] of entries.slice(0, n)) out[k0] = x0;
        }
        if (out) out[k] = y;
      }
      return out ?? v;
    }
    return v;
  };
  return walk(value) as T;
}
