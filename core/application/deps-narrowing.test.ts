import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { AccountsUseCases } from './accounts.service.js';
import { TwoFactorUseCases } from './two-factor.service.js';
import { AdminUseCases } from './admin.service.js';
import { ApiTokensUseCases } from './api-tokens.service.js';
import type { Application } from './application.js';
import { CashierTokensUseCases } from './cashier-tokens.service.js';
import { CashierUseCases } from './cashier.service.js';
import { CollectionsUseCases } from './collections.service.js';
import { CommandsUseCases } from './commands.service.js';
import { DepositsUseCases } from './deposits.service.js';
import { AuditUseCases } from './audit.service.js';
import type { ResolvedDeps } from './deps.js';
import { StakingUseCases } from './staking.service.js';
import { SubscriptionsUseCases } from './subscriptions.service.js';
import { TransfersUseCases } from './transfers.service.js';
import { WalletsUseCases } from './wallets.service.js';
import { WebhooksUseCases } from './webhooks.service.js';
import { WithdrawalPoliciesUseCases } from './withdrawal-policies.service.js';
import { LedgerUseCases } from './ledger.service.js';
import { MembersUseCases } from './members.service.js';
import { CommandApprovalsUseCases } from './command-approvals.service.js';

/*
 * Issue #23 item 4: a use case's constructor names the ports it touches, so its signature says what it can do. Two
 * guards: a type-level one, which `npm run typecheck` checks (vitest does not type-check), and a source scan, which
 * vitest runs. The worker (worker/) is outside both: its executors take their own narrow ports.
 */

/** Every service of the Application; `satisfies` makes a new group fail to compile until it is listed here. */
const SERVICES = {
  accounts: AccountsUseCases,
  twoFactor: TwoFactorUseCases,
  subscriptions: SubscriptionsUseCases,
  apiTokens: ApiTokensUseCases,
  wallets: WalletsUseCases,
  commands: CommandsUseCases,
  collections: CollectionsUseCases,
  cashierTokens: CashierTokensUseCases,
  cashier: CashierUseCases,
  webhooks: WebhooksUseCases,
  transfers: TransfersUseCases,
  staking: StakingUseCases,
  admin: AdminUseCases,
  deposits: DepositsUseCases,
  audit: AuditUseCases,
  withdrawalPolicies: WithdrawalPoliciesUseCases,
  ledger: LedgerUseCases,
  members: MembersUseCases,
  commandApprovals: CommandApprovalsUseCases,
} satisfies { readonly [K in keyof Application]: new (deps: never) => Application[K] };

type Services = typeof SERVICES;

/** The groups whose constructor accepts every port (ResolvedDeps or CoreDeps whole): none. */
type TakingEveryPort = {
  [K in keyof Services]: [Exclude<keyof ResolvedDeps, keyof ConstructorParameters<Services[K]>[0]>] extends [never] ? K : never;
}[keyof Services];

const applicationDir = dirname(fileURLToPath(import.meta.url));

/** The use-case modules: core/application/*.ts without tests, the worker and the composition (deps.ts, index.ts). */
function useCaseFiles(): string[] {
  return readdirSync(applicationDir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'deps.ts' && name !== 'index.ts')
    .map((name) => join(applicationDir, name));
}

/** What a source says about its dependencies: parameters typed with the whole deps, and the constructors' deps types. */
function depsFindings(source: string): { readonly wholeDepsParams: string[]; readonly constructorDeps: string[] } {
  const wholeDepsParams = [...source.matchAll(/\b(\w+)\??\s*:\s*(ResolvedDeps|CoreDeps)\b(?!\s*[<[.])/g)]
    .map((m) => `${m[1]}: ${m[2]}`);
  const constructorDeps = [...source.matchAll(/\bconstructor\(\s*(?:(?:private|public|protected|readonly)\s+)*deps\s*:\s*([\w<>'| ,&]+?)\s*\)/g)]
    .map((m) => m[1]!);
  return { wholeDepsParams, constructorDeps };
}

describe('use cases name their ports (issue #23)', () => {
  it('no service constructor accepts every port (type-level; fails `npm run typecheck`)', () => {
    expectTypeOf<TakingEveryPort>().toBeNever();
  });

  it('no use-case function or constructor takes ResolvedDeps or CoreDeps whole', () => {
    const offenders = useCaseFiles().flatMap((file) =>
      depsFindings(readFileSync(file, 'utf8')).wholeDepsParams.map((param) => `${file.slice(applicationDir.length + 1)}: ${param}`));
    expect(offenders).toEqual([]);
  });

  it('each *.service.ts constructor takes a Deps alias its own file declares as a Pick of ResolvedDeps', () => {
    const services = useCaseFiles().filter((file) => file.endsWith('.service.ts'));
    expect(services.length).toBe(Object.keys(SERVICES).length);
    for (const file of services) {
      const source = readFileSync(file, 'utf8');
      const [alias, ...more] = depsFindings(source).constructorDeps;
      expect(more, file).toEqual([]);
      expect(alias, file).toMatch(/^[A-Z]\w*Deps$/);
      expect(source, file).toMatch(new RegExp(`export type ${alias} = Pick<ResolvedDeps,`));
    }
  });

  it('the scanner sees a constructor or a function taking the whole deps (so the checks above can fail)', () => {
    const sample = [
      'export class A { constructor(private readonly deps: ResolvedDeps) {} }',
      'export function b(deps: CoreDeps, x: number) {}',
      'export function c(deps: Pick<ResolvedDeps, \'clock\'>, d?: ResolvedDeps) {}',
      'export class E { constructor(private readonly deps: EDeps) {} }',
    ].join('\n');
    expect(depsFindings(sample)).toEqual({
      wholeDepsParams: ['deps: ResolvedDeps', 'deps: CoreDeps', 'd: ResolvedDeps'],
      constructorDeps: ['ResolvedDeps', 'EDeps'],
    });
  });
});
