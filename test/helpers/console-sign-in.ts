import type { Harness } from './harness.js';
import { browserOf, createPerson, type PageBrowser, type PageReply } from './pages.js';

export type AccountKind = 'organizationAdministrator' | 'courseAdministrator' | 'learner';

export const CONSOLE_PASSWORD = 'console horse 1';

let people = 0;

/**
 * A browser signed in, through the real sign-in form, as a new person of the organization of `token`
 * with that kind of account (the standard agreement accepted, so that no step stands in the way).
 */
export async function signedInAs(
  h: Harness,
  kind: AccountKind,
  orgId = h.org.id,
  token = h.org.token,
): Promise<{ browser: PageBrowser; userId: string }> {
  people += 1;
  const email = `${kind.toLowerCase()}.${people}@example.com`;
  const userId = await createPerson(
    h,
    { email, password: CONSOLE_PASSWORD, firstName: 'Ada', ...(kind === 'learner' ? {} : { accountType: kind }) },
    token,
  );
  const browser = browserOf(h);
  const signedIn = await browser.signIn(orgId, email, CONSOLE_PASSWORD);
  if (signedIn.status !== 303) throw new Error(`the sign-in of ${email} answered ${signedIn.status}: ${signedIn.body.slice(0, 300)}`);
  return { browser, userId };
}

const ENTITIES: Record<string, string> = { '&#39;': "'", '&quot;': '"', '&amp;': '&', '&lt;': '<', '&gt;': '>' };
const unescaped = (text: string) => text.replace(/&(#39|quot|amp|lt|gt);/g, (entity) => ENTITIES[entity]!);

/** The text of a page without its tags, spaces joined: what a person reads. */
export function textOf(reply: PageReply): string {
  return unescaped(reply.body.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
}

/** The value of the input or text area with `id` on the page, as a browser reads it. */
export function valueOf(reply: PageReply, id: string): string | undefined {
  const tag = new RegExp(`<(input|textarea)[^>]*\\bid="${id}"[^>]*>`).exec(reply.body);
  if (!tag) return undefined;
  if (tag[1] === 'input') {
    const value = /\bvalue="([^"]*)"/.exec(tag[0])?.[1];
    return value === undefined ? undefined : unescaped(value);
  }
  const rest = reply.body.slice(tag.index + tag[0].length);
  // The parser drops the newline that opens a text area's content.
  return unescaped(rest.slice(0, rest.indexOf('</textarea>')).replace(/^\n/, ''));
}
