/**
 * The copy-paste quickstart `npm start` prints, kept as data: the same steps are rendered as curl commands for a
 * human and walked over HTTP by the dev-start test, so the printed text cannot drift from what works.
 */

/** One HTTP call of the walk. `$NAME` in `url` and `body` is a shell variable set by an earlier step. */
export interface HttpStep {
  readonly kind: 'http';
  readonly title: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** Variable holding the bearer token, if any. */
  readonly bearer?: string;
  /** JSON text; values may contain `$NAME`. */
  readonly body?: string;
  /** Sends a fresh Idempotency-Key. */
  readonly idempotent?: boolean;
  /** Stores a field of the JSON answer (a jq path such as `.data.token`) in a variable. */
  readonly capture?: { readonly variable: string; readonly path: string };
  readonly note?: string;
}

/** A value the user types in from the server's output (the e-mail verification code). */
export interface InputStep {
  readonly kind: 'input';
  readonly title: string;
  readonly variable: string;
  /** Pattern of the server output line carrying the value in its first group. */
  readonly fromOutput: RegExp;
  readonly note: string;
}

/** A line the pasted script prints for the user (the payer link); `$NAME` expands. */
export interface ShowStep {
  readonly kind: 'show';
  readonly title: string;
  readonly label: string;
  readonly text: string;
}

/** One step of the quickstart walk. */
export type QuickstartStep = HttpStep | InputStep | ShowStep;

/** The demo account of the walk. */
export const QUICKSTART_EMAIL = 'dev@example.com';
const PASSWORD = 'correct horse battery staple';

/**
 * Register → verify → login → subscribe → API token → main + sub address → cashier token and payer link → pay with
 * the faucet (a real transaction the scanner sees) → collect.
 */
export function quickstartSteps(): readonly QuickstartStep[] {
  const json = { email: QUICKSTART_EMAIL, password: PASSWORD };
  return [
    { kind: 'http', title: 'register an account', method: 'POST', url: '$API/auth/register', body: JSON.stringify(json) },
    {
      kind: 'input', title: 'take the e-mail code', variable: 'CODE', fromOutput: /verification code for dev@example\.com: (\d{6})/,
      note: `the 6 digits this server printed as "verification code for ${QUICKSTART_EMAIL}: …"`,
    },
    { kind: 'http', title: 'verify the e-mail', method: 'POST', url: '$API/auth/verify', body: `{"email":"${QUICKSTART_EMAIL}","code":"$CODE"}` },
    {
      kind: 'http', title: 'log in (session token)', method: 'POST', url: '$API/auth/login', body: JSON.stringify(json),
      capture: { variable: 'ST', path: '.data.session_token' },
    },
    { kind: 'http', title: 'subscribe to the developer plan', method: 'POST', url: '$API/subscriptions/activate', bearer: 'ST', body: '{"service_code":"developer"}' },
    {
      kind: 'http', title: 'subscribe to sub-addresses (starter: 10)', method: 'POST', url: '$API/subscriptions/activate', bearer: 'ST',
      body: '{"service_code":"sub_address","plan_code":"starter"}',
    },
    {
      kind: 'http', title: 'create a Developer API Token', method: 'POST', url: '$API/api-tokens', bearer: 'ST', body: '{"name":"quickstart"}',
      capture: { variable: 'DK', path: '.data.token' },
    },
    {
      kind: 'http', title: 'create the main address (the devnet faucet gives it 1,000 TRX)', method: 'POST', url: '$API/wallets', bearer: 'DK',
      body: '{"network_code":"TRON","address_type":1}', capture: { variable: 'MAIN', path: '.data.address' },
    },
    {
      kind: 'http', title: 'create a sub-address', method: 'POST', url: '$API/wallets', bearer: 'DK',
      body: '{"network_code":"TRON","address_type":2,"address_label":"order-1"}', capture: { variable: 'SUB', path: '.data.address' },
    },
    {
      kind: 'http', title: 'issue a cashier token for the payer', method: 'POST', url: '$API/cashier/tokens', bearer: 'DK',
      body: '{"address":"$SUB","ttl_minutes":60}', capture: { variable: 'CT', path: '.data.token' },
    },
    { kind: 'show', title: 'open the payer page in a browser', label: 'payer page', text: '$BASE/cashier?ct=$CT' },
    { kind: 'http', title: 'the payer\'s view', method: 'GET', url: '$API/cashier/session', bearer: 'CT' },
    {
      kind: 'http', title: 'pay 25 USDT to the sub-address (faucet: a real devnet transaction)', method: 'POST', url: '$BASE/dev/faucet',
      body: '{"address":"$SUB","asset_symbol":"USDT","amount":"25000000"}',
    },
    {
      kind: 'http', title: 'the cached balance', method: 'GET', url: '$API/wallets/$SUB/balances', bearer: 'DK',
      note: 'the worker\'s balance scanner picks the payment up within a block or two; the payer page shows it by itself',
    },
    {
      kind: 'http', title: 'sweep the USDT to the main address', method: 'POST', url: '$API/collections', bearer: 'DK', idempotent: true,
      body: '{"address":"$SUB","asset_symbol":"USDT"}', capture: { variable: 'TASK', path: '.data.task_no' },
    },
    {
      kind: 'http', title: 'follow the collection', method: 'GET', url: '$API/collections/$TASK', bearer: 'DK',
      note: 'repeat until status is 11 (DONE; 12 is FAILED): each step waits for its block, one every DEVNET_BLOCK_MS',
    },
  ];
}

/** `{"a":"$X"}` as a double-quoted shell word, so `$X` expands and the JSON quotes survive. */
function shellJson(body: string): string {
  return `"${body.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** One step as a bash line (or two, with its comment). */
export function renderStep(step: QuickstartStep, index: number): string {
  const heading = `# ${index + 1}. ${step.title}`;
  if (step.kind === 'input') return `${heading}\n${step.variable}=000000   # <- ${step.note}`;
  if (step.kind === 'show') return `${heading}\necho "${step.label}: ${step.text}"`;
  const parts = ['curl -s', ...(step.method === 'GET' ? [] : ['-X POST']), `"${step.url}"`];
  if (step.bearer !== undefined) parts.push(`-H "authorization: Bearer $${step.bearer}"`);
  if (step.idempotent === true) parts.push('-H "Idempotency-Key: quickstart-$RANDOM$RANDOM"');
  if (step.body !== undefined) parts.push(`-H 'content-type: application/json' -d ${shellJson(step.body)}`);
  const command = parts.join(' ');
  const line = step.capture === undefined ? `${command}; echo` : `${step.capture.variable}=$(${command} | jq -r ${step.capture.path}); echo "${step.capture.variable}=$${step.capture.variable}"`;
  return step.note === undefined ? `${heading}\n${line}` : `${heading}   (${step.note})\n${line}`;
}

/** The whole quickstart, ready to paste into bash (needs curl and jq). */
export function renderQuickstart(base: string, devnetUrl: string, steps: readonly QuickstartStep[] = quickstartSteps()): string {
  return [
    '# Quickstart (bash; needs curl and jq). Paste step by step:',
    `BASE=${base}; API=$BASE/api; DEVNET=${devnetUrl}`,
    ...steps.map(renderStep),
  ].join('\n');
}
