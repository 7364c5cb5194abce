import { createTransport, type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends the server's mails (a forgotten password's link) through the SMTP server of SMTP_URL. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * A mailer over `smtp://`, `smtps://` (TLS from the start) or `smtp://…?secure=false` URLs, as
 * nodemailer reads them (user and password in the URL's userinfo). `from` is the sender's address.
 */
export function smtpMailer(url: string, from: string): Mailer {
  const transport: Transporter = createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
