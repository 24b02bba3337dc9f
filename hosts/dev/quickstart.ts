/**
 * The copy-paste quickstart `npm start` prints: one bash block, from its `BASE=` line to the blank line after it, that
 * goes from sign-up to a finished collection by itself and stops at the first failure with the envelope's message.
 * The steps are data, rendered here; quickstart.integration.test.ts runs the printed block with bash against a real
 * `npm start`, so the text cannot drift from what works.
 */

/** One call through the block's `call` wrapper. `$NAME` in `url` and `body` is a shell variable set earlier. */
export interface CallStep {
  readonly kind: 'call';
  readonly title: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** Variable holding the bearer token, if any. */
  readonly bearer?: string;
  /** JSON text; values may contain `$NAME`. */
  readonly body?: string;
  /** Sends a fresh Idempotency-Key. */
  readonly idempotent?: boolean;
  /** Stores a field of the answer (a jq path such as `.data.token`) in a variable; a missing field stops the block. */
  readonly capture?: { readonly variable: string; readonly path: string };
  /** What of the answer to print, a jq filter (default `.data`, compact). */
  readonly print?: string;
  readonly note?: string;
}

/** A line the block prints for the user (the payer link); `$NAME` expands. */
export interface ShowStep {
  readonly kind: 'show';
  readonly title: string;
  readonly text: string;
  readonly note?: string;
}

/**
 * Polls a GET until a value of its answer is one of `until`: the block goes on when it is `success`, and stops with
 * the last answer's data otherwise, or when `limitSeconds` pass first.
 */
export interface PollStep {
  readonly kind: 'poll';
  readonly title: string;
  readonly url: string;
  readonly bearer: string;
  /** The variable the value is kept in. */
  readonly variable: string;
  /** jq filter of the answer giving the value. */
  readonly value: string;
  /** How a change of the value is printed (`$NAME` expands; the value follows). */
  readonly label: string;
  readonly until: readonly string[];
  readonly success: string;
  readonly limitSeconds: number;
  readonly note?: string;
}

/** One step of the quickstart walk. */
export type QuickstartStep = CallStep | ShowStep | PollStep;

/** The quickstart's answer to a payment: what the faucet sends to the sub-address and the collection sweeps. */
export const QUICKSTART_USDT = '25000000';

/**
 * Register → verify (the code read from the dev-only `GET /dev/verification-code`) → login → subscribe → API token →
 * main + sub address → cashier token and payer link → pay with the faucet (a real transaction the scanner sees) →
 * wait for the credit → collect → wait for DONE → the main address's balance.
 */
export function quickstartSteps(): readonly QuickstartStep[] {
  const credentials = '{"email":"$EMAIL","password":"$PASSWORD"}';
  return [
    { kind: 'call', title: 'register an account', method: 'POST', url: '$API/auth/register', body: credentials },
    {
      kind: 'call', title: 'read the e-mail\'s verification code', method: 'GET', url: '$BASE/dev/verification-code?email=$EMAIL',
      capture: { variable: 'CODE', path: '.data.code' }, note: 'npm start only; production mails it',
    },
    { kind: 'call', title: 'verify the e-mail', method: 'POST', url: '$API/auth/verify', body: '{"email":"$EMAIL","code":"$CODE"}' },
    {
      kind: 'call', title: 'log in (session token)', method: 'POST', url: '$API/auth/login', body: credentials,
      capture: { variable: 'ST', path: '.data.session_token' },
    },
    { kind: 'call', title: 'subscribe to the developer plan', method: 'POST', url: '$API/subscriptions/activate', bearer: 'ST', body: '{"service_code":"developer"}' },
    {
      kind: 'call', title: 'subscribe to sub-addresses (starter: 10)', method: 'POST', url: '$API/subscriptions/activate', bearer: 'ST',
      body: '{"service_code":"sub_address","plan_code":"starter"}',
    },
    {
      kind: 'call', title: 'create a Developer API Token', method: 'POST', url: '$API/api-tokens', bearer: 'ST', body: '{"name":"quickstart"}',
      capture: { variable: 'DK', path: '.data.token' },
    },
    {
      kind: 'call', title: 'create the main address (the devnet faucet gives it 1,000 TRX)', method: 'POST', url: '$API/wallets', bearer: 'DK',
      body: '{"network_code":"TRON","address_type":1}', capture: { variable: 'MAIN', path: '.data.address' },
    },
    {
      kind: 'call', title: 'create a sub-address', method: 'POST', url: '$API/wallets', bearer: 'DK',
      body: '{"network_code":"TRON","address_type":2,"address_label":"order-1"}', capture: { variable: 'SUB', path: '.data.address' },
    },
    {
      kind: 'call', title: 'issue a cashier token for the payer', method: 'POST', url: '$API/cashier/tokens', bearer: 'DK',
      body: '{"address":"$SUB","ttl_minutes":60}', capture: { variable: 'CT', path: '.data.token' },
    },
    { kind: 'show', title: 'open the payer page in a browser', text: 'payer page: $BASE/cashier?ct=$CT' },
    { kind: 'call', title: 'the payer\'s view', method: 'GET', url: '$API/cashier/session', bearer: 'CT' },
    {
      kind: 'call', title: 'pay 25 USDT to the sub-address (faucet: a real devnet transaction)', method: 'POST', url: '$BASE/dev/faucet',
      body: `{"address":"$SUB","asset_symbol":"USDT","amount":"${QUICKSTART_USDT}"}`,
    },
    {
      kind: 'poll', title: 'wait for the worker\'s balance scanner to credit it', url: '$API/wallets/$SUB/balances', bearer: 'DK',
      variable: 'USDT', value: '.data.items[] | select(.symbol == "USDT") | .balance_available', label: 'USDT balance of $SUB:',
      until: [QUICKSTART_USDT], success: QUICKSTART_USDT, limitSeconds: 120, note: 'a block or two; the payer page shows it by itself',
    },
    {
      kind: 'call', title: 'sweep the USDT to the main address', method: 'POST', url: '$API/collections', bearer: 'DK', idempotent: true,
      body: '{"address":"$SUB","asset_symbol":"USDT"}', capture: { variable: 'TASK', path: '.data.task_no' },
    },
    {
      kind: 'poll', title: 'follow the collection until it finishes', url: '$API/collections/$TASK', bearer: 'DK',
      variable: 'STATUS', value: '.data.status', label: 'collection $TASK status', until: ['11', '12'], success: '11', limitSeconds: 600,
      note: '11 DONE, 12 FAILED; each step waits for its block, one every DEVNET_BLOCK_MS',
    },
    {
      kind: 'call', title: 'the main address\'s balance, read from the chain', method: 'POST', url: '$API/wallets/$MAIN/balances/refresh', bearer: 'DK',
      body: '{"force":true}', print: '.data.items',
    },
  ];
}

/** `{"a":"$X"}` as a double-quoted shell word, so `$X` expands and the JSON quotes survive. */
function shellJson(body: string): string {
  return `"${body.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The arguments of `call` (curl's) for a request. */
function callArgs(step: { readonly method: 'GET' | 'POST'; readonly url: string; readonly bearer?: string; readonly body?: string; readonly idempotent?: boolean }): string {
  const parts = [...(step.method === 'GET' ? [] : ['-X POST']), `"${step.url}"`];
  if (step.bearer !== undefined) parts.push(`-H "authorization: Bearer $${step.bearer}"`);
  if (step.idempotent === true) parts.push('-H "Idempotency-Key: quickstart-$RANDOM$RANDOM"');
  if (step.body !== undefined) parts.push(`-H 'content-type: application/json' -d ${shellJson(step.body)}`);
  return parts.join(' ');
}

/** A poll as a bounded bash loop; `pollSeconds` apart. */
function renderPoll(step: PollStep, pollSeconds: number): string {
  const v = step.variable;
  const rounds = Math.max(1, Math.ceil(step.limitSeconds / pollSeconds));
  return [
    `${v}=; LAST=`,
    `for ((i = 0; i < ${rounds}; i++)); do`,
    `  ANSWER=$(call ${callArgs({ method: 'GET', url: step.url, bearer: step.bearer })}); ${v}=$(jq -r '${step.value}' <<<"$ANSWER")`,
    `  [ "$${v}" = "$LAST" ] || echo "${step.label} $${v}"; LAST=$${v}`,
    `  case $${v} in ${step.until.join('|')}) break ;; esac; sleep ${pollSeconds}`,
    'done',
    `[ "$${v}" = ${step.success} ] || { echo "FAILED: ${step.title}: got '$${v}' after up to ${step.limitSeconds} s: $(jq -c .data <<<"$ANSWER")" >&2; exit 1; }`,
  ].join('\n');
}

/** One step as bash lines, with its numbered comment. */
export function renderStep(step: QuickstartStep, index: number, pollSeconds = 2): string {
  const heading = `# ${index + 1}. ${step.title}${step.note === undefined ? '' : ` (${step.note})`}`;
  if (step.kind === 'show') return `${heading}\necho "${step.text}"`;
  if (step.kind === 'poll') return `${heading}\n${renderPoll(step, pollSeconds)}`;
  const command = `call ${callArgs(step)}`;
  const line = step.capture === undefined
    ? `${command} | jq -c '${step.print ?? '.data'}'`
    : `${step.capture.variable}=$(${command} | jq -er '${step.capture.path}'); echo "${step.capture.variable}=$${step.capture.variable}"`;
  return `${heading}\n${line}`;
}

/**
 * `call`: curl with the given arguments, printing the answer; an HTTP error prints the envelope's code and message
 * (the body when it is not an envelope) and fails, which ends the block (`set -e` in its subshell).
 */
const CALL_FUNCTION = [
  'call() {',
  '  local out status',
  '  out=$(curl -sS -w \'\\n%{http_code}\' "$@") || { echo "FAILED: no answer from $BASE (is npm start running?)" >&2; return 1; }',
  '  status=${out##*$\'\\n\'}; out=${out%$\'\\n\'*}',
  '  if [ "$status" -ge 400 ]; then',
  '    echo "FAILED: HTTP $status $(jq -r \'.code + ": " + .message\' <<<"$out" 2>/dev/null || printf \'%s\' "$out")" >&2; return 1',
  '  fi',
  '  printf \'%s\\n\' "$out"',
  '}',
].join('\n');

/**
 * The whole quickstart for bash (needs curl and jq): a comment line, then the block from `BASE=` to the blank line
 * that ends it. Everything after `BASE=` runs in a subshell with `set -euo pipefail`, so pasting it whole stops at the
 * first failure without closing the terminal; the devnet's block time sets how often it polls.
 */
export function renderQuickstart(base: string, devnetUrl: string, blockMs: number, steps: readonly QuickstartStep[] = quickstartSteps()): string {
  const pollSeconds = Math.min(5, Math.max(1, Math.ceil(blockMs / 1_000)));
  return [
    '# Quickstart (bash; needs curl and jq). Paste the whole block, from BASE= to the blank line after it: it runs from',
    '# sign-up to a finished collection by itself and stops at the first failure with the server\'s message.',
    `BASE=${base}; API=$BASE/api; DEVNET=${devnetUrl}`,
    '( set -euo pipefail',
    CALL_FUNCTION,
    'EMAIL=dev-$RANDOM$RANDOM@example.com; PASSWORD=\'correct horse battery staple\'; echo "EMAIL=$EMAIL"',
    ...steps.map((step, i) => renderStep(step, i, pollSeconds)),
    'echo "DONE: collection $TASK swept the USDT to $MAIN. To go on in this shell: DK=$DK SUB=$SUB MAIN=$MAIN TASK=$TASK"',
    ')',
    '',
  ].join('\n');
}
