import * as oidc from 'openid-client';
import { fetch as undiciFetch, type Agent } from 'undici';
import { main } from '../../src/cli/main.js';
import { formActionOf, titleOf, type PageBrowser } from './pages.js';

/** A client as `training-api clients create --json` prints it. */
export interface RegisteredClient {
  clientId: string;
  /** None for a public client (`--public`). */
  clientSecret?: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
}

/**
 * A sign-in client of the organization, registered as its administrator does, with the command line:
 * `training-api clients create --org <orgId> --name <name> --redirect-uri <uri>... [more] --json`.
 */
export async function registerClient(databaseUrl: string, orgId: string, name: string, more: string[]): Promise<RegisteredClient> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    ['clients', 'create', '--org', orgId, '--name', name, ...more, '--json'],
    { DATABASE_URL: databaseUrl },
    { out: (line) => out.push(line), err: (line) => err.push(line) },
  );
  if (code !== 0) throw new Error(`clients create exited with ${code}: ${err.join('\n')}`);
  return JSON.parse(out.join('\n')) as RegisteredClient;
}

/**
 * A relying party as an application builds one with openid-client: the server discovered at `origin`
 * (its certificate alone trusted, through `agent`), the client's secret sent with HTTP Basic (none for
 * a public client), and every ID token's signature checked against the server's JWKS.
 */
export async function relyingParty(origin: string, agent: Agent, client: RegisteredClient): Promise<oidc.Configuration> {
  const trustingFetch: oidc.CustomFetch = (url, options) => undiciFetch(url, { ...options, dispatcher: agent });
  const config = await oidc.discovery(
    new URL(origin),
    client.clientId,
    undefined,
    client.clientSecret ? oidc.ClientSecretBasic(client.clientSecret) : oidc.None(),
    { [oidc.customFetch]: trustingFetch },
  );
  oidc.enableNonRepudiationChecks(config);
  return config;
}

/** One authorization request with PKCE, state and nonce: where to send the browser, and how to redeem what comes back. */
export interface Authorization {
  url: URL;
  redirectUri: string;
  /** Redeems the code of the redirect back to the application (checks state, nonce, the ID token's signature and claims). */
  redeem(callback: string): Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers>;
}

export async function authorization(
  config: oidc.Configuration,
  redirectUri: string,
  scope = 'openid email profile',
  more: Record<string, string> = {},
): Promise<Authorization> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...more,
  });
  return {
    url,
    redirectUri,
    redeem: (callback) =>
      oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce }),
  };
}

/** Whether an address is the application's redirect back (where a browser would leave the server). */
export const backTo = (redirectUri: string) => (location: string) => location.startsWith(redirectUri);

/**
 * A browser's walk through an application's sign-in: the authorization request, the organization's
 * sign-in form if the person is not signed in there yet, the provider's self-submitting form when the
 * browser's provider session was someone else's (a script submits it in a browser), and the redirects
 * up to the one back to the application, whose address (with the code) is returned. Anything else on
 * the way is an error that says where it stopped.
 */
export async function signInThrough(browser: PageBrowser, auth: Authorization, email: string, password: string): Promise<string> {
  const back = backTo(auth.redirectUri);
  let reply = await browser.follow(await browser.get(auth.url.href), back);
  for (let step = 0; step < 3; step += 1) {
    if (reply.location && back(reply.location)) return reply.location;
    const signInForm = formActionOf(reply.body, /\/interaction\/[0-9A-Za-z_-]+$/);
    if (reply.status === 200 && titleOf(reply.body) === 'Submitting Callback') {
      reply = await browser.follow(await browser.post(formActionOf(reply.body)!, { _csrf: undefined, ...hiddenFieldsOf(reply.body) }), back);
    } else if (reply.status === 200 && signInForm) {
      reply = await browser.follow(await browser.post(signInForm, { email, password }), back);
    } else break;
  }
  if (reply.location && back(reply.location)) return reply.location;
  throw new Error(`the sign-in stopped at ${reply.status} ${titleOf(reply.body)}: ${reply.body.slice(0, 300)}`);
}

/** The hidden inputs of a page's forms (name → value, a repeated name's last): what a browser sends back unasked. */
export function hiddenFieldsOf(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [input] of body.matchAll(/<input type="hidden"[^>]*>/g)) {
    const name = /\bname="([^"]+)"/.exec(input)?.[1];
    const value = /\bvalue="([^"]*)"/.exec(input)?.[1];
    if (name && value !== undefined) fields[name] = value.replaceAll('&amp;', '&').replaceAll('&#39;', "'").replaceAll('&quot;', '"');
  }
  return fields;
}
