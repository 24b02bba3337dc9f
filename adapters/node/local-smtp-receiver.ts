/**
 * Test support (smtp-server is a devDependency; production code never imports this file): a local SMTP receiver
 * that records each message's envelope and raw text, with optional AUTH.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as received. */
export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly raw: string;
}

/** A listening receiver on 127.0.0.1. */
export interface LocalSmtpReceiver {
  readonly port: number;
  /** `smtp://[user:pass@]127.0.0.1:port`. */
  readonly url: string;
  readonly mails: readonly ReceivedMail[];
  close(): Promise<void>;
}

export async function startLocalSmtpReceiver(options: { readonly user?: string; readonly pass?: string } = {}): Promise<LocalSmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const auth = options.user !== undefined;
  const server = new SMTPServer({
    secure: false, disabledCommands: auth ? ['STARTTLS'] : ['AUTH', 'STARTTLS'], allowInsecureAuth: true, authOptional: !auth,
    onAuth(given, _session, callback) {
      if (given.username === options.user && given.password === options.pass) callback(null, { user: given.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => { raw += c.toString('utf8'); });
      stream.on('end', () => {
        const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        mails.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  const credentials = auth ? `${encodeURIComponent(options.user!)}:${encodeURIComponent(options.pass ?? '')}@` : '';
  return {
    port, url: `smtp://${credentials}127.0.0.1:${port}`, mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
