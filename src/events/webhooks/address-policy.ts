import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where webhooks may post: public addresses over https; http to loopback as well when allowed (tests, local development). */
export interface AddressPolicy {
  allowInsecureLoopback: boolean;
}

const URL_MESSAGE = 'must be an https URL of a public host';
/** How loopback becomes allowed, for a refusal to name. */
const LOOPBACK_SETTING = 'set WEBHOOKS_ALLOW_INSECURE_LOOPBACK=true to allow loopback, over http or https, for tests and local development';

/** RFC 1035 §2.3.4: a name of at most 253 characters (255 octets on the wire), each label of at most 63. */
export const MAX_NAME_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;

/** Names every resolver on the machine answers with a loopback address: `localhost` and its subdomains (RFC 6761 §6.3), and Debian's /etc/hosts ones. */
export const LOOPBACK_DOMAIN = 'localhost';
export const LOOPBACK_NAMES = ['ip6-localhost', 'ip6-loopback'];

function isLoopbackName(name: string): boolean {
  return name === LOOPBACK_DOMAIN || name.endsWith(`.${LOOPBACK_DOMAIN}`) || LOOPBACK_NAMES.includes(name);
}

/** Domains reserved for private networks, and what they hold: no public host is ever named under them. */
export const PRIVATE_DOMAINS: Readonly<Record<string, string>> = {
  internal: 'names ICANN reserves for private networks',
  local: 'multicast DNS names on the local link (RFC 6762)',
  'home.arpa': 'names of home networks (RFC 8375)',
};

/**
 * Why a host name cannot be posted to, or undefined. A name over DNS's limits is refused before
 * anything is done with it: besides resolving nowhere, one over 255 bytes makes Node's tls.connect
 * leave an OpenSSL error on the thread's queue, which an unrelated incoming connection then reads
 * as its own (docs/behaviour.md, "Webhook URLs"). Names under a private domain are refused at save
 * only: at delivery, resolving them finds their addresses out.
 */
function nameProblem(name: string, check: UrlCheck): string | undefined {
  if (name.length > MAX_NAME_LENGTH) return `must have a host name of at most ${MAX_NAME_LENGTH} characters (this one has ${name.length})`;
  const labels = name.split('.');
  if (labels.some((label) => label === '')) return 'must have a host name without empty labels (two dots in a row)';
  const long = labels.find((label) => label.length > MAX_LABEL_LENGTH);
  if (long) {
    return `must have a host name whose labels (the parts between dots) are at most ${MAX_LABEL_LENGTH} characters each (one has ${long.length})`;
  }
  if (check === 'delivery') return undefined;
  const domain = Object.keys(PRIVATE_DOMAINS).find((domain) => name === domain || name.endsWith(`.${domain}`));
  if (domain) return `${URL_MESSAGE}: .${domain} is not public, it holds ${PRIVATE_DOMAINS[domain]}`;
  return undefined;
}

/**
 * IPv4-compatible IPv6 addresses (`::10.0.0.1`, deprecated by RFC 4291 §2.5.5.1): a stack may reach
 * the IPv4 address they embed, and ipaddr.js counts them as unicast. `::` and `::1` are ranges of their own.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** Whether an IP address may be posted to: a public unicast one, or loopback when allowed. */
function isPermittedAddress(address: string, policy: AddressPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 addresses count as IPv4
  const range = parsed.range();
  if (parsed instanceof ipaddr.IPv6 && range === 'unicast' && parsed.match(IPV4_COMPATIBLE)) return false;
  return range === 'unicast' || (policy.allowInsecureLoopback && range === 'loopback');
}

/** The host of a URL without the brackets of an IPv6 literal, nor a name's final dot. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** The authority of a URL as RFC 3986 reads it (up to the first `/`, `?` or `#`), which some clients do where WHATWG's parser differs. */
const AUTHORITY = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)/i;

/** When a URL is checked: when it is saved, or before each delivery to it (which also checks the addresses its name resolves to). */
export type UrlCheck = 'save' | 'delivery';

/**
 * Why a webhook URL is refused as it is written, or undefined: a space, control character or
 * backslash in it, not https (http only to loopback, when allowed), credentials in it, a host name
 * over DNS's limits, or an address literal that is not public; at save, also a name that never
 * leads to a public host (loopback names, private domains). Names are resolved, and their
 * addresses checked, at every delivery.
 */
export function urlProblem(text: string, policy: AddressPolicy, check: UrlCheck = 'save'): string | undefined {
  // The URL parser would silently drop a tab or line break, and trim spaces: the text stored must be the URL posted to.
  if (/[\s\p{Cc}]/u.test(text)) return 'must not contain spaces or control characters (percent-encode them)';
  // `https://example.com\@127.0.0.1/` is example.com to WHATWG's parser, and user information before 127.0.0.1 to RFC 3986's.
  const authority = AUTHORITY.exec(text)?.[1] ?? '';
  if (authority.includes('@')) {
    return `must not hold a user name or password: "${authority}" has an @, and some clients would post to ${authority.slice(authority.lastIndexOf('@') + 1) || 'nothing'}`;
  }
  if (text.includes('\\')) return 'must not contain a backslash (percent-encode it as %5C): URL parsers read it differently';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return URL_MESSAGE;
  }
  const host = hostOf(url);
  const address = isIP(host) !== 0;
  const loopback = address ? ipaddr.process(host).range() === 'loopback' : isLoopbackName(host);
  if (loopback && !policy.allowInsecureLoopback && (address || check === 'save')) {
    return `${URL_MESSAGE}: ${host} is a loopback ${address ? 'address' : 'name'} (${LOOPBACK_SETTING})`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback && policy.allowInsecureLoopback)) {
    return policy.allowInsecureLoopback ? `${URL_MESSAGE} (http only to loopback)` : URL_MESSAGE;
  }
  if (address) {
    return isPermittedAddress(host, policy) ? undefined : `${URL_MESSAGE}: ${host} is not a public address (private, link-local or reserved)`;
  }
  return nameProblem(host, check);
}

export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` for the sockets of deliveries: a name whose addresses include one that is not
 * permitted is refused, so a public name pointing at an internal address (DNS rebinding) is caught
 * on the address actually connected to.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !isPermittedAddress(entry.address, policy));
      if (refused)
        return callback(new RefusedAddressError(`${hostname} resolves to ${refused.address}, a private, link-local or loopback address`), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
