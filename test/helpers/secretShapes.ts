// The secret-shape suite (issue 23): every shape the redactor must find, with a fresh random body
// made at test time in the provider's published format, so nothing committed here is a secret
// (or looks like one to push protection: each prefix is split with `+`). The 69 rows of
// seededSecrets.ts come first; then the shapes a red team found missing, more token families, a
// raw `#` in a URL password, tokens glued on after `-`, `_` or a URL escape, and prefix-less
// random values that only the entropy rule catches.

import { randomBytes, randomInt } from 'node:crypto';
import { SEEDED_SECRETS, type SeededSecret } from './seededSecrets';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[randomInt(alphabet.length)]).join('');
/** Random characters of `alphabet` that hold at least one upper-case letter, lower-case letter and digit (generated keys do). */
const mixed = (n: number, alphabet = ALNUM) => (n < 12 ? pick(alphabet, n) : 'aZ7bY8' + pick(alphabet, n - 6));
const alnum = (n: number) => mixed(n);
const hex = (n: number) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n).replace(/^./, 'a').replace(/.$/, '7');
const b64 = (n: number) => mixed(n, ALNUM + '+/');
const b64url = (n: number) => mixed(n, ALNUM + '-_');
const upper = (n: number) => 'Z7' + pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', n - 2);
const digits = (n: number) => '1' + pick('0123456789', n - 1);

export interface SecretShape extends SeededSecret {}

/** A token shape placed in a line of prose; the secret is the whole token. */
function bare(name: string, secret: string, line = (s: string) => `the agent printed ${s} and went on`): SecretShape {
  return { name, where: 'text', text: line(secret), secret };
}

/** Made once per test process: every run of the suite uses new random bodies. */
export function secretShapes(): SecretShape[] {
  const p = (...parts: string[]) => parts.join('');
  const shapes: SecretShape[] = [...SEEDED_SECRETS];
  // The 23 shapes (22 families and the Discord webhook) the red team found missing as bare text.
  shapes.push(
    bare('Stripe webhook secret', p('wh', 'sec_', alnum(32))),
    bare('Twilio API key', p('S', 'K', hex(32))),
    bare('Slack app-level token', p('xa', 'pp-1-', upper(11), '-', digits(13), '-', hex(64))),
    bare('Discord bot token', p('M', b64url(25), '.', b64url(6), '.', b64url(38))),
    (() => {
      const token = b64url(68);
      return { name: 'Discord webhook', where: 'url', text: p('POST https://discord.com/api/', 'webhooks/', digits(18), '/', token), secret: token };
    })(),
    bare('AWS session token (bare)', p('IQoJb3JpZ2luX2Vj', 'EJr', b64(320))),
    { name: 'kubeconfig client-key-data', where: 'yaml', text: `users:\n- name: admin\n  user:\n    client-key-data: ${'LS0tLS1CRUdJTi' + b64(400)}\n`, secret: 'LS0tLS1CRUdJTi' + b64(400) },
    bare('Mailgun key', p('ke', 'y-', hex(32))),
    bare('Linear API key', p('lin_', 'api_', alnum(40))),
    bare('Notion secret_', p('sec', 'ret_', alnum(43))),
    bare('Notion ntn_', p('nt', 'n_', digits(11), alnum(35))),
    bare('Supabase sbp_', p('sb', 'p_', hex(40))),
    bare('Grafana service account', p('gl', 'sa_', alnum(32), '_', hex(8))),
    bare('New Relic user key', p('NR', 'AK-', upper(27))),
    bare('age secret key', p('AGE-SECRET', '-KEY-1', pick('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58))),
    bare('Vault token', p('hv', 's.', 'CAESI', b64url(90))),
    bare('Tailscale key', p('ts', 'key-auth-', 'k', alnum(10), 'CNTRL-', alnum(32))),
    bare('Groq key', p('gs', 'k_', alnum(52))),
    bare('Doppler token', p('dp', '.st.', 'dev.', alnum(43))),
    bare('Postman key', p('PM', 'AK-', hex(24), '-', hex(34))),
    bare('Atlassian token', p('ATA', 'TT3xFfGF0', b64url(180), '=', hex(8).toUpperCase())),
    bare('Replicate token', p('r8', '_', alnum(37))),
    bare('PlanetScale token', p('pscale', '_tkn_', alnum(43))),
  );
  // More families from the gitleaks / secretlint checklists.
  shapes.push(
    bare('Sentry user token', p('sntry', 'u_', hex(64))),
    bare('Heroku key', p('HR', 'KU-', b64url(60))),
    bare('Perplexity key', p('pp', 'lx-', alnum(48))),
    bare('xAI key', p('xa', 'i-', alnum(80))),
    bare('LangSmith key', p('lsv2', '_pt_', hex(32), '_', hex(10))),
    bare('Pinecone key', p('pc', 'sk_', alnum(6), '_', alnum(60))),
    bare('Airtable token', p('pa', 't', alnum(14), '.', hex(64))),
    bare('Netlify token', p('nf', 'p_', alnum(40))),
    bare('Square token', p('sq0', 'atp-', b64url(22))),
    bare('Figma token', p('fi', 'gd_', b64url(40))),
    bare('Terraform Cloud token', p(alnum(14), '.atlas', 'v1.', b64url(67))),
    bare('Pulumi token', p('pu', 'l-', hex(40))),
    bare('Fly.io token', p('fo', '1_', b64url(43))),
    bare('RubyGems key', p('ruby', 'gems_', hex(48))),
    bare('NuGet key', p('oy', '2', pick('abcdefghijklmnopqrstuvwxyz0123456789', 42), '7')),
    bare('Contentful token', p('CF', 'PAT-', b64url(43))),
    bare('Dynatrace token', p('dt0', 'c01.', upper(24), '.', upper(64))),
    bare('Prefect key', p('pn', 'u_', alnum(36))),
    bare('Azure AD client secret', p('q7X', '8Q', '~', b64url(34).replace(/-/g, '.'))),
    bare('Mailchimp key', p(hex(32), '-us', '14')),
    bare('Grafana Cloud token', p('gl', 'c_', b64(64))),
    bare('Slack refresh token', p('xo', 'xe-1-', upper(40))),
    bare('Supabase secret key', p('sb_', 'secret_', b64url(32))),
    bare('GitLab deploy token', p('gl', 'dt-', b64url(20))),
    bare('Anthropic admin key', p('sk-', 'ant-admin01-', b64url(86))),
    bare('1Password service account token', p('op', 's_eyJ', b64(120))),
    bare('Vercel token', p('vc', 'p_', alnum(40))),
  );
  // Where rules used to miss a known shape: glued after `-` or `_`, URL-encoded, a raw `#` in a URL password.
  const ghp = p('gh', 'p_', alnum(36));
  const ant = p('sk-', 'ant-api03-', b64url(60));
  const groq = p('gs', 'k_', alnum(52));
  const urlPw = `Xy#${alnum(12)}`;
  shapes.push(
    { name: 'GitHub token after _', where: 'env', text: `export TOKEN_${ghp}`, secret: ghp },
    { name: 'Anthropic key after -', where: 'shell', text: `--header=x-${ant}`, secret: ant },
    { name: 'Groq key after %3D', where: 'url', text: `https://proxy.example.com/v1?key%3D${groq}&model=llama`, secret: groq },
    { name: 'URL password with a raw #', where: 'url', text: `DATABASE_URL=postgres://app:${urlPw}@db.internal:5432/app`, secret: urlPw },
    { name: 'password%3D in a query', where: 'url', text: `https://svc.example.com/login?user=ada&password%3D${'Pw9!' + alnum(12)}`, secret: '' },
  );
  const last = shapes[shapes.length - 1];
  last.secret = last.text.slice(last.text.indexOf('%3D') + 3);
  // Prefix-less values only the entropy rule can find: after `=`, `:`, `-`, `_`, in a URL's path and query.
  const e1 = mixed(40, ALNUM + '+');
  const e2 = alnum(32);
  const e3 = alnum(28);
  const e4 = b64url(36).replace(/[-_]/g, 'q');
  const e5 = alnum(30);
  shapes.push(
    { name: 'random value after =', where: 'env', text: `DEPLOY_CRED=${e1}`, secret: e1 },
    { name: 'random value after :', where: 'env', text: `credential:${e2}`, secret: e2 },
    { name: 'random value in a URL path', where: 'url', text: `curl https://files.example.com/share/${e3}/report.pdf`, secret: e3 },
    { name: 'random value in a URL query', where: 'url', text: `https://hooks.example.com/notify?sig=x&k=${e4}`, secret: e4 },
    { name: 'random value after _', where: 'env', text: `session_${e5}`, secret: e5 },
  );
  return shapes;
}

/** Text that must come through every exit exactly as it is: ids, hashes, images, names, paths. */
export const MUST_SURVIVE = [
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
  'id=3f2b8c1e-9d4a-4f6b-8e2c-1a5d7b9c0e3f',
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'cancellationToken: CancellationToken.None',
  'path=/home/ada/projects/AgentTraceLens2/src/core/llm/redactScanners.ts',
  'integrity: sha512-Q2Fyb2wgU21pdGggMTIzIGFuZCBhIGxvbmcgc3RyaW5nIG9mIHRleHQ9PQ==',
  'tool_use_id=toolu_01AbCdEf23GhIjKl45MnOpQr',
  'key: MAX_OUTPUT_TOKENS_PER_REQUEST_2048',
  'https://github.com/acme/app/blob/main/src/Components2/UserProfile3/index.tsx',
];
