import { describe, expect, it } from 'vitest';
import { ConsoleMailer } from './console-mailer.js';

describe('ConsoleMailer', () => {
  it('prints an invitation as `invitation code for <email>: <code>`, after a line naming the account and role (issue #35)', async () => {
    const lines: string[] = [];
    await new ConsoleMailer((line) => lines.push(line)).sendInvitationCode('ops@team.example', 'K7QX2M9RTA3B', { accountEmail: 'owner@team.example', role: 'operator' });
    expect(lines).toEqual([
      'invitation of ops@team.example to owner@team.example\'s account as operator: its code follows',
      'invitation code for ops@team.example: K7QX2M9RTA3B',
    ]);
  });
});
