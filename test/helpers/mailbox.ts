import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail as the SMTP server received it: its recipients and its text, headers and transfer encoding undone. */
export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
}

/** Quoted-printable undone (RFC 2045 §6.7): soft line breaks joined, `=XX` bytes decoded as UTF-8. */
function unquoted(body: string): string {
  const joined = body.replace(/=\r?\n/g, '');
  return Buffer.from(
    joined.replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

function parsed(to: string[], raw: string): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1] ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text = encoding === 'quoted-printable' ? unquoted(body) : encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
  return { to, from: header('From'), subject: header('Subject'), text };
}

/**
 * A real SMTP server on a free port of 127.0.0.1 that keeps every mail it is sent, for SMTP_URL
 * (`url`). Plain SMTP, no authentication: the mailer speaks to it as to a relay on the same host.
 */
export async function startMailbox(): Promise<{
  url: string;
  mails: ReceivedMail[];
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}> {
  const mails: ReceivedMail[] = [];
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push(
          parsed(
            session.envelope.rcptTo.map((recipient) => recipient.address),
            Buffer.concat(chunks).toString('latin1'),
          ),
        );
        for (const wake of waiting) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const taken = new Set<ReceivedMail>();
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The first mail to `to` not yet taken, when it comes (the mail is sent after the page answers). */
    next(to, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const mail = mails.find((each) => !taken.has(each) && each.to.includes(to));
          if (!mail) return false;
          taken.add(mail);
          waiting.delete(wake);
          clearTimeout(timer);
          resolve(mail);
          return true;
        };
        const wake = () => void look();
        const timer = setTimeout(() => {
          waiting.delete(wake);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${mails.map((mail) => mail.to.join(',')).join('; ') || 'none'})`));
        }, timeoutMs);
        if (!look()) waiting.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
