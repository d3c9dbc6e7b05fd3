// The rules of the redactor (redact.ts applies them). Each pattern runs in linear time: it starts
// at a literal or a word boundary, and every repetition that could overlap another is bounded, so
// no start can scan the rest of the text (the bench and redaction.linear.test.ts hold this). Key
// blocks and prefix-less random values are found by the scanners in redactScanners.ts instead.
//
// Prefixed token shapes follow the providers' published formats (the same list gitleaks and
// secretlint check); the patterns here are written for this file.

import { REDACTED_PREFIX } from './redactMarker';

export interface Rule {
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

// Left boundary for token prefixes: not inside a longer word, but glued on after `-`, `_` or a
// URL escape (`TOKEN_ghp_…`, `%3Dghp_…`) still counts.
// (Not an alphanumeric, unless that is the end of a `%XX` escape; written as one lookbehind so the
// engine still scans for the token's literal prefix.)
const B = '(?<!(?<!%[0-9A-Fa-f]?)[A-Za-z0-9])';
// The strict boundary, for short prefixes that also end ordinary words (`key-`, `secret_`).
const BS = '(?<![A-Za-z0-9_-])';
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
  while (i > 0 && end - i < 200 && /[A-Za-z0-9_$]/.test(text[i - 1])) i--;
  if (i > 0 && (text[i - 1] === '"' || text[i - 1] === "'")) i--;
  if (i > 0 && text[i - 1] === '\\') i--;
  return i;
}

/** True when the match starts its line (after indentation or a YAML "- ") and nothing but spaces follow it. */
function isWholeConfigLine(m: RegExpExecArray, start = m.index): boolean {
  // Bounded look-around: a long line with many matches must not be copied once per match.
  let lineStart = start;
  while (lineStart > 0 && start - lineStart <= 80 && m.input[lineStart - 1] !== '\n') lineStart--;
  const before = start - lineStart > 80 ? 'x' : m.input.slice(lineStart, start);
  const from = m.index + m[0].length;
  // The rest of the line, looked for within 200 characters: on a long line, a search for its end
  // from every match would read the line again per match.
  const ahead = m.input.slice(from, from + 200);
  const nl = ahead.indexOf('\n');
  const after = nl === -1 ? ahead : ahead.slice(0, nl);
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
const SEP = `(?:[ \\t]|${NL}){1,40}`;
// Value forms shared by the key = value rules: double-quoted (maybe JSON-escaped), single-quoted, bare.
const VALUE = `(?:\\\\?"([^"\\n\\\\]*)\\\\?"|'([^'\\n]*)'|([^\\s"',;{})\\\\]+))`;
// Assignment: `=`, `:`, `:=`, or a URL-encoded `=` / `:` (`password%3D…`).
const ASSIGN = '(?::=|=|:|%3[DdAa])';
// Last words of a camelCase / PascalCase key (`dbPassword`, `sessionToken`, `"SessionToken"`, `SecretAccessKey`).
const CAMEL_WORDS = 'Password|Passwd|Passphrase|Pwd|SecretKey|Secret|Token|ApiKey|AccessKey|PrivateKey|AuthKey|ClientSecret';


/** A token with a literal prefix: `B prefix body E`, redacted whole. */
const token = (kind: string, body: string, accept?: Rule['accept'], left = B): Rule => ({
  kind,
  pattern: new RegExp(`${left}${body}${E}`, 'g'),
  ...(accept ? { accept } : {}),
});

export const RULES: Rule[] = [
  {
    kind: 'putty-private-key',
    // PuTTY .ppk files: the private lines and their MAC; the public part and comment stay.
    pattern: new RegExp(`(Private-Lines:[ \\t]{0,8}\\d{1,4}${NL})((?:[A-Za-z0-9+/=]+(?:${NL}|$))+(?:Private-(?:MAC|Hash):[ \\t]*[0-9a-fA-F]+)?)`, 'g'),
    group: 2,
    needs: ['Private-Lines'],
  },
  // --- model providers
  token('anthropic-key', 'sk-ant-[A-Za-z0-9_-]{20,}'),
  token('openrouter-key', 'sk-or-v1-[a-f0-9]{32,}'),
  token('openrouter-key', 'sk-or-[A-Za-z0-9_-]{20,}', looksGenerated),
  token('openai-key', 'sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}', (s) => looksGenerated(s.replace(/^sk-(?:proj-|svcacct-|admin-)?/, ''))),
  token('openai-key', 'sk-[a-z0-9]{32,}', (s) => hasDigit(s) && /[a-z]/.test(s.slice(3))),
  token('huggingface-token', 'hf_[A-Za-z0-9]{30,}', looksGenerated),
  token('groq-key', 'gsk_[A-Za-z0-9]{40,}'),
  token('replicate-token', 'r8_[A-Za-z0-9]{30,}', looksGenerated),
  token('perplexity-key', 'pplx-[A-Za-z0-9]{40,}'),
  token('xai-key', 'xai-[A-Za-z0-9]{60,}'),
  token('langsmith-key', 'lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}'),
  token('pinecone-key', 'pcsk_[A-Za-z0-9]{4,12}_[A-Za-z0-9]{40,}'),
  // --- code hosting and package registries
  token('github-token', 'gh[pousr]_[A-Za-z0-9]{36,}'),
  token('github-token', 'github_pat_[A-Za-z0-9_]{22,}'),
  token('gitlab-token', 'gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_-]{20,}'),
  token('pypi-token', 'pypi-[A-Za-z0-9_-]{40,}'),
  token('npm-token', 'npm_[A-Za-z0-9]{36}'),
  token('rubygems-token', 'rubygems_[a-f0-9]{48}'),
  token('nuget-key', 'oy2[a-z0-9]{43}', (s) => hasDigit(s)),
  token('docker-token', 'dckr_pat_[A-Za-z0-9_-]{20,}'),
  token('terraform-token', '[A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=-]{60,}'),
  token('pulumi-token', 'pul-[a-f0-9]{40}'),
  token('postman-key', 'PMAK-[A-Fa-f0-9]{24}-[A-Fa-f0-9]{34}'),
  token('atlassian-token', 'AT(?:ATT|CTT)[A-Za-z0-9_=-]{40,}'),
  token('linear-key', 'lin_(?:api|oauth)_[A-Za-z0-9]{40}'),
  token('notion-token', 'ntn_[A-Za-z0-9]{40,}', looksGenerated),
  token('notion-token', 'secret_[A-Za-z0-9]{43}', looksGenerated, BS),
  token('figma-token', 'figd_[A-Za-z0-9_-]{40,}'),
  token('airtable-token', 'pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}'),
  token('contentful-token', 'CFPAT-[A-Za-z0-9_-]{43}'),
  // --- cloud, infrastructure, observability
  token('sendgrid-key', 'SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}'),
  token('google-oauth-token', 'ya29\\.[0-9A-Za-z_-]{20,}'),
  token('google-api-key', 'AIza[0-9A-Za-z_-]{35}'),
  token('digitalocean-token', 'do[opr]_v1_[a-f0-9]{64}'),
  token('shopify-token', 'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}'),
  token('databricks-token', 'dapi[a-f0-9]{32}(?:-\\d)?'),
  token('supabase-token', 'sbp_(?:oauth_)?[a-f0-9]{40}'),
  token('supabase-token', 'sb_secret_[A-Za-z0-9_-]{20,}'),
  token('grafana-token', 'glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}'),
  token('grafana-token', 'glc_[A-Za-z0-9+/]{32,}={0,2}'),
  token('grafana-token', 'eyJrIjoi[A-Za-z0-9]{30,}={0,2}'),
  token('newrelic-key', 'NR(?:AK|II|JS|AA|RA)-[A-Za-z0-9]{20,}'),
  token('vault-token', 'hv[sbr]\\.[A-Za-z0-9_-]{24,}'),
  token('tailscale-key', 'tskey-[A-Za-z0-9-]{20,}', hasDigit),
  token('doppler-token', 'dp\\.(?:st|ct|sa|scim|audit|pt)\\.(?:[a-z0-9_-]{2,35}\\.)?[A-Za-z0-9]{40,}'),
  token('planetscale-token', 'pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{30,}'),
  token('sentry-token', 'sntry[su]_[A-Za-z0-9+/=_-]{40,}'),
  token('heroku-key', 'HRKU-[A-Za-z0-9_-]{40,}'),
  token('netlify-token', 'nfp_[A-Za-z0-9]{36,}'),
  token('fly-token', 'fo1_[A-Za-z0-9_-]{40,}'),
  token('dynatrace-token', 'dt0c01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64}'),
  token('prefect-key', 'pnu_[A-Za-z0-9]{36}'),
  token('age-secret-key', 'AGE-SECRET-KEY-1[0-9A-Z]{58}'),
  token('1password-token', 'ops_eyJ[A-Za-z0-9+/_-]{60,}={0,2}'),
  token('vercel-token', 'vc[pkiar]_[A-Za-z0-9]{24,}', looksGenerated),
  {
    kind: 'aws-session-token',
    // STS session tokens on their own: base64 of a protobuf that starts the same way every time.
    pattern: new RegExp(`${B}(?:FwoGZXIvYXdz|IQoJb3JpZ2lu|IQoGZXIvYXdz|AQoDYXdz|AgoJb3JpZ2lu)[A-Za-z0-9+/]{80,}={0,2}(?![A-Za-z0-9+/=])`, 'g'),
  },
  // --- payments and messaging
  token('stripe-key', '[sr]k_(?:live|test|prod)_[A-Za-z0-9]{20,}'),
  token('stripe-webhook-secret', 'whsec_[A-Za-z0-9]{24,}'),
  token('square-token', 'sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}'),
  token('twilio-key', 'SK[0-9a-fA-F]{32}', (s) => /[a-f]/i.test(s.slice(2)) && hasDigit(s)),
  token('mailgun-key', 'key-[0-9a-f]{32}', undefined, BS),
  token('mailchimp-key', '[0-9a-f]{32}-us[0-9]{1,2}'),
  { kind: 'telegram-token', pattern: /(?<![0-9:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])/g, needs: [':AA'] },
  token('slack-token', 'xox[abposre]-[A-Za-z0-9-]{10,}'),
  token('slack-token', 'xoxe\\.xox[bp]-[A-Za-z0-9-]{10,}'),
  token('slack-app-token', 'xapp-\\d-[A-Za-z0-9-]{20,}'),
  { kind: 'slack-webhook', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Za-z0-9_]{1,20}\/[A-Za-z0-9_]{1,20}\/[A-Za-z0-9_]{8,}/g, needs: ['hooks.slack'] },
  {
    kind: 'discord-webhook',
    pattern: /(https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,20}\/)([A-Za-z0-9_-]{40,})/g,
    group: 2,
    needs: ['discord'],
  },
  // Discord bot tokens: base64 of the bot's id, a timestamp, an HMAC.
  token('discord-token', '[MNO][A-Za-z0-9_-]{23,27}\\.[A-Za-z0-9_-]{6}\\.[A-Za-z0-9_-]{27,40}', looksGenerated),
  // --- Azure, AWS
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
  token('azure-client-secret', '[A-Za-z0-9_~.]{3}\\dQ~[A-Za-z0-9_~.-]{31,34}'),
  { kind: 'aws-access-key', pattern: new RegExp(`${B}(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, 'g') },
  {
    kind: 'aws-secret',
    pattern: /\b(aws_?secret_?(?:access_?)?key|secret_?access_?key)(["']?\s{0,8}(?:[:=]|%3[DdAa])\s{0,8}["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    group: 3,
  },
  {
    kind: 'private-key',
    // kubeconfig and similar: a private key given inline as base64 (`client-key-data: LS0t…`).
    pattern: /\b((?:client-key-data|private-key-data|client_key_data|tls\.key)["']?\s{0,8}[:=]\s{0,8}["']?)([A-Za-z0-9+/]{20,}={0,2})/g,
    group: 2,
    needs: ['key-data', 'key_data', 'tls.key'],
  },
  {
    kind: 'private-key',
    // A PEM key base64-encoded once more (Kubernetes secrets, CI variables): "-----BEGIN" is `LS0tLS1CRUdJTi`.
    pattern: new RegExp(`${B}LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}`, 'g'),
    accept: (s) => /UFJJVkFURSBLRV|BSSVZBVEUgS0VZ|QUklWQVRFIEtFW/.test(s),
    needs: ['LS0tLS1CRUdJTi'],
  },
  {
    kind: 'jwt',
    pattern: new RegExp(`${B}eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}${E}`, 'g'),
  },
  {
    kind: 'url-password',
    // scheme://user:password@host — the user name and host stay, the password goes (a raw `#` in it too).
    pattern: /(?<![A-Za-z0-9+.-])([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/?#@'"<>]{0,256}:)([^\s/?@'"<>]{1,512})(@)/gi,
    group: 2,
    accept: (p) => !p.startsWith(REDACTED_PREFIX) && !PLACEHOLDER.test(p),
    needs: ['://'],
  },
  {
    kind: 'bearer-token',
    pattern: /\b(Authorization["']?\s{0,8}[:=]\s{0,8}["']?(?:Bearer|Basic|Token)\s{1,8})([A-Za-z0-9._~+/=-]{8,})/gi,
    group: 2,
    accept: (v) => !v.startsWith(REDACTED_PREFIX) && !PLACEHOLDER.test(v),
  },
  {
    kind: 'bearer-token',
    pattern: /\b(Bearer\s{1,8})([A-Za-z0-9._~+/-]{20,}=*)/g,
    group: 2,
    accept: (v) => /\d/.test(v) && /[A-Za-z]/.test(v),
  },
  {
    kind: 'basic-auth',
    // `Basic dXNlcjpwYXNz` anywhere (a header copied without its name): only base64 of printable user:password.
    pattern: /(?<![A-Za-z0-9])(Basic\s{1,8})([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g,
    group: 2,
    accept: isBasicCredential,
  },
  {
    kind: 'cookie',
    // Cookie: / Set-Cookie: headers carry session ids: the whole value goes, the header name stays.
    pattern: /(?<![A-Za-z0-9-])((?:Set-)?Cookie\s{0,8}:\s{0,8})([^\r\n"\\=]{0,200}=[^\r\n"\\]{4,})/gi,
    group: 2,
    accept: (v) => !PLACEHOLDER.test(v),
    needs: ['ookie', 'OOKIE'],
  },
  {
    kind: 'password',
    // mysql -pPW (the password glued to -p), also mysqldump, mysqladmin, mariadb.
    pattern: /(?<![\w-])((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mariadb|mariadb-dump)\b[^\n|;&]{0,300}?\s-p)([^\s'"\\-][^\s'"\\]*|'[^'\n]+'|"[^"\n\\]+"|\\"[^"\n\\]+\\")/g,
    group: 2,
    accept: (v) => !PLACEHOLDER.test(v.replace(/^["']|["']$/g, '')),
    needs: ['mysql', 'mariadb'],
  },
  {
    kind: 'password',
    // sshpass -p PW
    pattern: /(?<![\w-])(sshpass\s{1,8}-p\s{0,8})([^\s'"\\]+|'[^'\n]+'|"[^"\n]+")/g,
    group: 2,
    accept: (v) => !PLACEHOLDER.test(v.replace(/^["']|["']$/g, '')),
    needs: ['sshpass'],
  },
  {
    kind: 'password',
    // .netrc: `machine HOST login USER password PW`, on one line or several (a login is needed: prose
    // such as "machine learning password manager" has none).
    pattern: new RegExp(`(machine${SEP}[^\\s\\\\]{1,256}${SEP}(?:(?:login|account)${SEP}[^\\s\\\\]{1,256}${SEP}){1,4}password[ \\t]{1,8})([^\\s\\\\]+)`, 'g'),
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
    pattern: new RegExp(`(${CAMEL_WORDS})(\\\\?["']?\\s{0,8}${ASSIGN}(?!=)\\s{0,8})${VALUE}`, 'g'),
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
    pattern: new RegExp(`(?<![A-Za-z0-9_])([A-Z][A-Z0-9]{0,40}(?:PASSWORD|PASSWD|TOKEN|SECRET|APIKEY)(?:_[A-Z0-9]{1,40}){0,6})=${VALUE}`, 'g'),
    needs: ['PASSWORD', 'PASSWD', 'TOKEN', 'SECRET', 'APIKEY'],
    group: (m) => (m[2] !== undefined ? 2 : m[3] !== undefined ? 3 : 4),
    accept: (_s, m) => isLiteralSecret(m[2] ?? m[3] ?? m[4] ?? '', m[2] !== undefined || m[3] !== undefined, m[1]),
  },
  {
    kind: (m) => kindOfKey(m[3]),
    // key = value, key: value, "key": "value", key := value; the key may carry a prefix (DB_PASSWORD).
    pattern: new RegExp(
      `(?<![A-Za-z0-9])((\\\\?["']?)((?:[A-Za-z0-9]{1,40}[_.-]){0,6}(?:${SECRET_WORDS})(?:[_.-](?:base|value|b64|hex|data))?)\\2\\s{0,8}${ASSIGN}(?!=)\\s{0,8})` +
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
    pattern: /(?<![A-Za-z0-9-])(--?(password|passwd|api-key|token|secret|client-secret)\s{1,8})([^\s-][^\s]*)/gi,
    group: 3,
    accept: (v, m) => isLiteralSecret(v.replace(/^["']|["']$/g, ''), /^["']/.test(v), m[2]),
  },
];
