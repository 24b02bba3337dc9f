import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { reportConfigError } from './process-log.js';

/** Every problem of an environment with three bad variables, as loadConfig reports them. */
function twoProblems(): ConfigError {
  try {
    loadConfig({ STORE: 'postgres', CHAIN: 'mainnet' }, { mode: 'dev' });
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('reportConfigError (how npm run serve, api and worker report a bad configuration)', () => {
  it('at a terminal: readable lines, one problem a line, no JSON and no escaped newlines', () => {
    const written: string[] = [];
    reportConfigError(pino({ level: 'silent' }), twoProblems(), { isTTY: true, write: (text) => written.push(text) });
    const lines = written.join('').split('\n');
    expect(lines[0]).toBe('configuration: 3 problems');
    expect(lines).toContain('  DATABASE_URL is required when STORE=postgres (postgres://user:password@host:5432/database, sslmode=verify-full for TLS)');
    expect(lines.some((l) => l.startsWith('  CHAIN must be one of devnet, tronweb'))).toBe(true);
    expect(written.join('')).not.toMatch(/\\n|^\{/);
  });

  it('in a pipe (a container log): one pino JSON line naming the variables', () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(line); } });
    const terminal: string[] = [];
    reportConfigError(log, twoProblems(), { isTTY: false, write: (text) => terminal.push(text) });
    expect(terminal).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 60, variables: ['DATABASE_URL', 'CHAIN', 'KEY_ENCRYPTION_KEY'], msg: expect.stringContaining('configuration: 3 problems\n') });
  });
});
