// Seeded secrets for the redaction tests: each row is a piece of text an agent log could hold
// (JSON, env files, shell lines, URLs, key files) and the secret inside it that must never reach a
// model or a shared file. Secrets are assembled at run time (`+`) so this file itself does not look
// like a leaked key to scanners. Every value is made up.

export interface SeededSecret {
  /** What the row is, for failure messages. */
  name: string;
  /** Where it sits: 'json' | 'env' | 'shell' | 'url' | 'block' | 'yaml' | 'code' | 'http'. */
  where: string;
  /** The text as it would appear in a log. */
  text: string;
  /** The secret: no substring of 12 characters of it (or all of it, when shorter) may survive. */
  secret: string;
}

const b64 = (n: number, seed: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[(x >> 16) % 64];
  }
  return out;
};
const hex = (n: number, seed: number) => {
  let x = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += '0123456789abcdef'[(x >> 16) % 16];
  }
  return out;
};
const alnum = (n: number, seed: number) => b64(n, seed).replace(/[+/]/g, 'q');
const lines = (s: string, width = 64) => s.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\n');

const PEM_BODY = lines('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC' + b64(1400, 11));
const EC_BODY = lines('MHcCAQEEI' + b64(200, 12));
const OPENSSH_BODY = lines('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ' + b64(400, 13), 70);
const PGP_BODY = lines('lQOYBGXq' + b64(1200, 14));
const PPK_PRIVATE = lines('AAAAIB' + b64(170, 15));

export const OPENAI_PROJECT_KEY = 'sk-proj-' + 'Xk3vR9tLq2ZmW8yPa1Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2Tu3';

export const SEEDED_SECRETS: SeededSecret[] = [
  // --- env files
  { name: 'OpenAI key in .env', where: 'env', text: `OPENAI_API_KEY=${OPENAI_PROJECT_KEY}`, secret: OPENAI_PROJECT_KEY },
  { name: 'Anthropic key in .env', where: 'env', text: `ANTHROPIC_API_KEY=${'sk-ant-api03-' + alnum(60, 21)}`, secret: 'sk-ant-api03-' + alnum(60, 21) },
  { name: 'OpenRouter key', where: 'env', text: `OPENROUTER_KEY=${'sk-or-v1-' + hex(64, 22)}`, secret: 'sk-or-v1-' + hex(64, 22) },
  { name: 'lowercase sk-<hex> key', where: 'env', text: `DEEPSEEK_KEY=${'sk-' + hex(32, 23)}`, secret: 'sk-' + hex(32, 23) },
  { name: 'lowercase sk-<hex> key in prose', where: 'shell', text: `use the key ${'sk-' + hex(48, 24)} for the batch job`, secret: 'sk-' + hex(48, 24) },
  { name: 'DB_PASSWORD', where: 'env', text: 'DB_PASSWORD=Zr7!quartz-Lemon', secret: 'Zr7!quartz-Lemon' },
  { name: 'Rails SECRET_KEY_BASE', where: 'env', text: `SECRET_KEY_BASE=${hex(128, 25)}`, secret: hex(128, 25) },
  { name: 'PGPASSWORD', where: 'env', text: 'export PGPASSWORD=tumbleweed42x', secret: 'tumbleweed42x' },
  { name: 'JWT_SECRET', where: 'env', text: 'JWT_SECRET="purple-Otter-9981"', secret: 'purple-Otter-9981' },
  { name: 'SLACK_BOT_TOKEN', where: 'env', text: `SLACK_BOT_TOKEN=${'xoxb-' + '123456789012-1234567890123-' + alnum(24, 26)}`, secret: 'xoxb-123456789012-1234567890123-' + alnum(24, 26) },
  { name: 'AWS access key id', where: 'env', text: 'AWS_ACCESS_KEY_ID=' + 'AKIA' + 'Q3EXAMPLE7KEYID7', secret: 'AKIA' + 'Q3EXAMPLE7KEYID7' },
  { name: 'AWS secret access key', where: 'env', text: `aws_secret_access_key = ${b64(40, 27)}`, secret: b64(40, 27) },
  { name: 'STRIPE_SECRET_KEY', where: 'env', text: `STRIPE_SECRET_KEY=${'sk_live_' + alnum(28, 28)}`, secret: 'sk_live_' + alnum(28, 28) },
  { name: 'HF_TOKEN', where: 'env', text: `HF_TOKEN=${'hf_' + 'aB3' + alnum(34, 29)}`, secret: 'hf_aB3' + alnum(34, 29) },
  { name: 'Django SECRET_KEY with symbols', where: 'env', text: "SECRET_KEY='d9$k!2x@q#7zv%m^w&p*r(t)y'", secret: 'd9$k!2x@q#7zv%m^w&p*r(t)y' },
  { name: 'npm token in .npmrc', where: 'env', text: `//registry.npmjs.org/:_authToken=${'npm_' + alnum(36, 30)}`, secret: 'npm_' + alnum(36, 30) },
  // --- JSON
  { name: 'AWS SessionToken in JSON', where: 'json', text: `{"Credentials": {"AccessKeyId": "${'ASIA' + 'Z7EXAMPLE3ID5ABC'}", "SessionToken": "${'FwoGZXIvYXdzE' + b64(180, 31)}", "Expiration": "2026-01-01T00:00:00Z"}}`, secret: 'FwoGZXIvYXdzE' + b64(180, 31) },
  { name: 'AWS ASIA key id in JSON', where: 'json', text: `{"AccessKeyId": "${'ASIA' + 'Z7EXAMPLE3ID5ABD'}"}`, secret: 'ASIA' + 'Z7EXAMPLE3ID5ABD' },
  { name: 'AWS SecretAccessKey in JSON', where: 'json', text: `{"SecretAccessKey": "${b64(40, 32)}"}`, secret: b64(40, 32) },
  { name: 'camelCase dbPassword', where: 'json', text: '{"dbPassword": "corvid&Lantern7"}', secret: 'corvid&Lantern7' },
  { name: 'camelCase sessionToken (JS object)', where: 'code', text: `const cfg = { sessionToken: '${alnum(40, 33)}' };`, secret: alnum(40, 33) },
  { name: 'camelCase dbPassword (YAML)', where: 'yaml', text: 'database:\n  dbPassword: marble-Fjord-55', secret: 'marble-Fjord-55' },
  { name: 'password in JSON', where: 'json', text: '{"user": "ada", "password": "n0t-so-s3cret"}', secret: 'n0t-so-s3cret' },
  { name: 'api_key in JSON', where: 'json', text: `{"api_key": "${alnum(32, 34)}"}`, secret: alnum(32, 34) },
  { name: 'client_secret in JSON', where: 'json', text: `{"client_id": "web-app", "client_secret": "${alnum(40, 35)}"}`, secret: alnum(40, 35) },
  { name: 'Google API key in JSON', where: 'json', text: `{"maps_key": "${'AIza' + 'Sy' + alnum(33, 36).replace(/[^A-Za-z0-9_-]/g, 'x')}"}`, secret: 'AIza' + 'Sy' + alnum(33, 36).replace(/[^A-Za-z0-9_-]/g, 'x') },
  { name: 'escaped JSON password inside a string', where: 'json', text: '"{\\"password\\": \\"quill-Basalt-31\\"}"', secret: 'quill-Basalt-31' },
  { name: 'refresh_token in JSON', where: 'json', text: `{"refresh_token": "${'1//0' + alnum(60, 37)}"}`, secret: '1//0' + alnum(60, 37) },
  { name: 'Google OAuth access token', where: 'json', text: `{"access_token": "${'ya29.' + alnum(80, 38)}"}`, secret: 'ya29.' + alnum(80, 38) },
  { name: 'SendGrid key', where: 'json', text: `{"sendgrid": "${'SG.' + alnum(22, 39) + '.' + alnum(43, 40)}"}`, secret: 'SG.' + alnum(22, 39) + '.' + alnum(43, 40) },
  // --- shell lines
  { name: 'GitHub classic PAT', where: 'shell', text: `$ export GH_TOKEN=${'ghp_' + alnum(36, 41)}`, secret: 'ghp_' + alnum(36, 41) },
  { name: 'GitHub fine-grained PAT', where: 'shell', text: `gh auth login --with-token <<< ${'github_pat_' + '11ABCDEFG0' + alnum(72, 42)}`, secret: 'github_pat_11ABCDEFG0' + alnum(72, 42) },
  { name: 'GitLab glpat token', where: 'shell', text: `curl --header "PRIVATE-TOKEN: ${'glpat-' + alnum(20, 43)}" https://gitlab.example.com/api/v4/projects`, secret: 'glpat-' + alnum(20, 43) },
  { name: 'PyPI token', where: 'shell', text: `twine upload -u __token__ -p ${'pypi-AgEIcHlwaS5vcmc' + alnum(120, 44)} dist/*`, secret: 'pypi-AgEIcHlwaS5vcmc' + alnum(120, 44) },
  { name: 'mysql -pPW', where: 'shell', text: 'mysql -u root -pW1ldcat_Rain -h 127.0.0.1 shop', secret: 'W1ldcat_Rain' },
  { name: 'mysqldump -pPW', where: 'shell', text: 'mysqldump --user=app -p"kettle9Drum" app > dump.sql', secret: 'kettle9Drum' },
  { name: '--password flag', where: 'shell', text: './deploy.sh --password gr4nite-Owl --env prod', secret: 'gr4nite-Owl' },
  { name: '--token flag', where: 'shell', text: `./release --token ${alnum(24, 45)}`, secret: alnum(24, 45) },
  { name: 'Bearer header in curl', where: 'shell', text: `curl -H "Authorization: Bearer ${alnum(48, 46)}" https://api.example.com/me`, secret: alnum(48, 46) },
  { name: 'JWT in a header', where: 'http', text: `Authorization: Bearer ${'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.' + alnum(43, 47).replace(/[^A-Za-z0-9_-]/g, 'x')}`, secret: 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.' + alnum(43, 47).replace(/[^A-Za-z0-9_-]/g, 'x') },
  { name: 'bare Basic credentials', where: 'shell', text: `curl -H "Basic ${Buffer.from('deploy:Sm0ky-Harbor').toString('base64')}" https://ci.example.com`, secret: Buffer.from('deploy:Sm0ky-Harbor').toString('base64') },
  { name: 'Authorization Basic', where: 'http', text: `Authorization: Basic ${Buffer.from('ada:lovelace-1843').toString('base64')}`, secret: Buffer.from('ada:lovelace-1843').toString('base64') },
  { name: 'sshpass -p', where: 'shell', text: 'sshpass -p Tr0mbone-Sky ssh deploy@10.0.0.5', secret: 'Tr0mbone-Sky' },
  { name: 'docker login token', where: 'shell', text: `echo ${'dckr_pat_' + alnum(27, 48).replace(/[^A-Za-z0-9]/g, 'z')} | docker login -u ada --password-stdin`, secret: 'dckr_pat_' + alnum(27, 48).replace(/[^A-Za-z0-9]/g, 'z') },
  { name: 'DigitalOcean token', where: 'shell', text: `doctl auth init -t ${'dop_v1_' + hex(64, 49)}`, secret: 'dop_v1_' + hex(64, 49) },
  { name: 'Databricks token', where: 'shell', text: `databricks configure --token ${'dapi' + hex(32, 50)}`, secret: 'dapi' + hex(32, 50) },
  { name: 'Shopify token', where: 'shell', text: `SHOPIFY_ACCESS=${'shpat_' + hex(32, 51)}`, secret: 'shpat_' + hex(32, 51) },
  { name: 'Telegram bot token', where: 'url', text: `https://api.telegram.org/bot${'7123456789:AA' + alnum(33, 52).replace(/[^A-Za-z0-9_-]/g, 'k')}/getMe`, secret: '7123456789:AA' + alnum(33, 52).replace(/[^A-Za-z0-9_-]/g, 'k') },
  // --- HTTP
  { name: 'Cookie session id', where: 'http', text: `GET /account HTTP/1.1\nHost: shop.example.com\nCookie: sessionid=${alnum(32, 53)}; csrftoken=${alnum(32, 54)}`, secret: alnum(32, 53) },
  { name: 'Set-Cookie session', where: 'http', text: `HTTP/1.1 200 OK\nSet-Cookie: _app_session=${alnum(64, 55)}; Path=/; HttpOnly`, secret: alnum(64, 55) },
  { name: 'X-Api-Key header', where: 'http', text: `X-Api-Key: ${alnum(32, 56)}`, secret: alnum(32, 56) },
  // --- URLs
  { name: 'postgres URL password', where: 'url', text: 'DATABASE_URL=postgres://admin:Pa55w0rd!x@db.internal:5432/app', secret: 'Pa55w0rd!x' },
  { name: 'redis URL with empty user', where: 'url', text: 'REDIS_URL=redis://:h0neyBadger77@cache.internal:6379/0', secret: 'h0neyBadger77' },
  { name: 'git remote with token', where: 'url', text: `git remote add origin https://x-access-token:${'ghs_' + alnum(36, 57)}@github.com/acme/app.git`, secret: 'ghs_' + alnum(36, 57) },
  { name: 'Slack webhook', where: 'url', text: `https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/${alnum(24, 58).replace(/[^A-Za-z0-9]/g, 'w')}`, secret: alnum(24, 58).replace(/[^A-Za-z0-9]/g, 'w') },
  { name: 'Azure AccountKey', where: 'url', text: `DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey=${b64(86, 59)}==;EndpointSuffix=core.windows.net`, secret: b64(86, 59) },
  { name: 'Azure SAS sig=', where: 'url', text: `https://acmestore.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&sig=${b64(43, 60).replace(/\+/g, '%2B').replace(/\//g, '%2F')}%3D`, secret: b64(43, 60).replace(/\+/g, '%2B').replace(/\//g, '%2F') },
  { name: 'Azure Service Bus SharedAccessKey', where: 'url', text: `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${b64(43, 61)}=`, secret: b64(43, 61) },
  { name: 'mongodb+srv URL password', where: 'url', text: 'mongodb+srv://svc:Gl4cier-Moth@cluster0.abcde.mongodb.net/prod', secret: 'Gl4cier-Moth' },
  { name: 'amqp URL password', where: 'url', text: 'amqp://guest:r4bbit-Hole9@mq.internal:5672/', secret: 'r4bbit-Hole9' },
  // --- config files
  { name: '.netrc one line', where: 'env', text: 'machine api.heroku.com login ada@example.com password h3roku-Cloud-7', secret: 'h3roku-Cloud-7' },
  { name: '.netrc several lines', where: 'env', text: 'machine git.example.com\n  login ada\n  password Sp1ral-Staircase', secret: 'Sp1ral-Staircase' },
  { name: 'YAML password', where: 'yaml', text: 'smtp:\n  user: mailer\n  password: quokka88', secret: 'quokka88' },
  { name: 'TOML token', where: 'env', text: `[registry]\ntoken = "${alnum(30, 62)}"`, secret: alnum(30, 62) },
  // --- key files
  { name: 'PEM PKCS#8 private key', where: 'block', text: `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n-----END PRIVATE KEY-----`, secret: PEM_BODY.split('\n')[3] },
  { name: 'PEM EC private key (JSON-escaped)', where: 'block', text: `{"key": "-----BEGIN EC PRIVATE KEY-----\\n${EC_BODY.replace(/\n/g, '\\n')}\\n-----END EC PRIVATE KEY-----\\n"}`, secret: EC_BODY.split('\n')[1] },
  { name: 'OpenSSH private key', where: 'block', text: `$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n${OPENSSH_BODY}\n-----END OPENSSH PRIVATE KEY-----`, secret: OPENSSH_BODY.split('\n')[2] },
  { name: 'PGP private key block', where: 'block', text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n${PGP_BODY}\n=a1B2\n-----END PGP PRIVATE KEY BLOCK-----`, secret: PGP_BODY.split('\n')[5] },
  { name: 'PuTTY private key file', where: 'block', text: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20260101\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIGp1c3QgYSBwdWJsaWMga2V5IGZvciB0ZXN0aW5n\nAAAA\nPrivate-Lines: ${PPK_PRIVATE.split('\n').length}\n${PPK_PRIVATE}\nPrivate-MAC: ${hex(64, 63)}`, secret: PPK_PRIVATE.split('\n')[0] },
];

/** Every fragment of `secret` that must not appear: the whole, or (long secrets) each 12-character window. */
export function secretFragments(secret: string): string[] {
  if (secret.length <= 16) return [secret];
  const out: string[] = [];
  for (let i = 0; i + 12 <= secret.length; i += 6) out.push(secret.slice(i, i + 12));
  return out;
}

/** The fragments of `secret` found in `text`. */
export function leakedFragments(text: string, secret: string): string[] {
  return secretFragments(secret).filter((f) => text.includes(f));
}
