import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where webhooks may post: public addresses over https; http to loopback as well when allowed (tests, local development). */
export interface AddressPolicy {
  allowInsecureLoopback: boolean;
}

const URL_MESSAGE = 'must be an https URL of a public host';

function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
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

/** The host of a URL without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Why a webhook URL is refused as it is written, or undefined: a space or control character in it,
 * not https (http only to loopback, when allowed), credentials in it, or an address literal that is
 * not public. Names are resolved,
 * and their addresses checked, at every delivery.
 */
export function urlProblem(text: string, policy: AddressPolicy): string | undefined {
  // The URL parser would silently drop a tab or line break, and trim spaces: the text stored must be the URL posted to.
  if (/[\s\p{Cc}]/u.test(text)) return 'must not contain spaces or control characters (percent-encode them)';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return URL_MESSAGE;
  }
  const host = hostOf(url);
  const loopback = isLoopbackName(host) || (isIP(host) !== 0 && ipaddr.process(host).range() === 'loopback');
  const insecureAllowed = policy.allowInsecureLoopback && loopback;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && insecureAllowed)) {
    return policy.allowInsecureLoopback ? `${URL_MESSAGE} (http only to loopback)` : URL_MESSAGE;
  }
  if (url.username || url.password) return 'must not hold a user name or password';
  if (isIP(host) !== 0 && !isPermittedAddress(host, policy)) return `${URL_MESSAGE}: ${host} is a private, link-local or loopback address`;
  return undefined;
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
