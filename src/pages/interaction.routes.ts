import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionResults } from 'oidc-provider';
import { hasPendingActions } from '../accounts/profile.service.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { pageErrors, PageError, type OrganizationRequest, type PageRoutesOptions } from './page-routes.js';
import { pagePolicy } from './policy.js';
import { signInForm, signPersonIn } from './sign-in.routes.js';

const INTERACTION = '/:orgId/interaction/:uid';

/** The CSP sources of redirect URIs: an origin, or a private-use scheme (`com.example.app:`). */
function formTargetsOf(redirectUris: readonly string[]): string[] {
  return [
    ...new Set(
      redirectUris.map((uri) => new URL(uri)).map((url) => (url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol)),
    ),
  ];
}

/**
 * The form targets of a page whose form leads, through redirects, on into an application's sign-in
 * (`next`, an interaction of the organization, as for the required steps): a browser holds the whole
 * chain of redirects of a form to the form's CSP, up to the application's redirect URI.
 */
export async function interactionFormTargets(
  options: PageRoutesOptions,
  request: FastifyRequest,
  orgId: string,
  next: string | undefined,
): Promise<string[]> {
  const uid = next === undefined ? undefined : new RegExp(`^/o/${orgId}/interaction/([\\w-]+)$`).exec(next)?.[1];
  if (!uid || !options.oidc) return [];
  const provider = await options.oidc.providerFor(options.oidc.issuerOf(request));
  const interaction = await provider.Interaction.find(uid);
  const client = interaction ? await options.oidc.clientOf(String(interaction.params.client_id)) : undefined;
  return client?.orgId === orgId && client.redirectUris ? formTargetsOf(client.redirectUris) : [];
}

/** An application's sign-in whose interaction is gone (expired, finished, or in another browser). */
const expired = () =>
  new PageError(
    400,
    (t) => t.errors.somethingWrong,
    (t) => t.errors.signInFailed,
  );

/**
 * The sign-in of the organization's applications (OpenID Connect): the provider sends the browser here
 * when it needs a person, and the person signs in as at the organization's own address, with the same
 * throttle, session and required steps. A person already signed in at the organization is sent back at
 * once. An application of another organization is no interaction of this one's (404).
 */
export function interactionRoutes(app: FastifyInstance, options: PageRoutesOptions): void {
  const oidc = options.oidc!;

  /** The interaction this browser has with the provider, if it is this organization's. */
  async function interactionOf(request: FastifyRequest, reply: FastifyReply, { organization }: OrganizationRequest) {
    const provider = await oidc.providerFor(oidc.issuerOf(request));
    const details = await provider.interactionDetails(request.raw, reply.raw).catch(() => {
      throw expired();
    });
    const { uid } = request.params as { uid: string };
    const client = await oidc.clientOf(String(details.params.client_id));
    if (details.uid !== uid || client?.orgId !== organization.id) throw pageErrors.notFound();
    // The form posts here, and the sign-in's redirects lead on to the application: the CSP lets them.
    reply.header('content-security-policy', pagePolicy(["'self'", ...formTargetsOf(client.redirectUris!)]));
    return { provider, details, client };
  }

  /** Ends the interaction with `result`: back to the provider, which goes on to the application. */
  async function finish(request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
    const provider = await oidc.providerFor(oidc.issuerOf(request));
    const returnTo = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
    return reply.redirect(returnTo, 303);
  }

  /** Where the person goes once signed in: the required steps first, then this interaction again. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply, orgId: string, userId: string) {
    if (hasPendingActions(await options.profile.pending(orgId, userId))) {
      const back = (request.url.split('?')[0] ?? '').replace(/\/abort$/, '');
      return reply.redirect(`/o/${orgId}/continue?next=${encodeURIComponent(back)}`, 303);
    }
    return finish(request, reply, { login: { accountId: userId, remember: false } });
  }

  app.get(INTERACTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const organizationRequest = await options.organizationRequest(request, reply);
    const { organization, session, context } = organizationRequest;
    const { details, client } = await interactionOf(request, reply, organizationRequest);
    const { t } = context;
    const action = `/o/${organization.id}/interaction/${details.uid}`;
    const cancel = html`<form method="post" action="${action}/abort">
      ${csrfField(context)}<button type="submit" class="secondary">${t.signIn.cancel(client.name)}</button>
    </form>`;
    if (details.prompt.name === 'consent') {
      // A native or browser app, which anyone could imitate: the person says that this sign-in is theirs.
      const body = html`<div class="card">
        <p>${t.signIn.confirmApplication(client.name)}</p>
        <div class="actions">
          <form method="post" action="${action}/consent">${csrfField(context)}<button type="submit" autofocus>${t.signIn.continue}</button></form>
          ${cancel}
        </div>
      </div>`;
      return options.sendPage(reply, 200, context, { title: t.signIn.title(organization.name), body });
    }
    if (session) return signedIn(request, reply, organization.id, session.user_id);
    const body = html`${signInForm(context, action, undefined, '')}${cancel}`;
    return options.sendPage(reply, 200, context, { title: t.signIn.title(organization.name), body });
  });

  app.post(INTERACTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const organizationRequest = await options.organizationRequest(request, reply);
    const { organization } = organizationRequest;
    const { details } = await interactionOf(request, reply, organizationRequest);
    const userId = await signPersonIn(options, request, reply, organizationRequest, `/o/${organization.id}/interaction/${details.uid}`);
    if (userId === undefined) return reply;
    return signedIn(request, reply, organization.id, userId);
  });

  app.post(`${INTERACTION}/consent`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const organizationRequest = await options.organizationRequest(request, reply);
    const { provider, details, client } = await interactionOf(request, reply, organizationRequest);
    if (details.prompt.name !== 'consent' || !details.session?.accountId) throw expired();
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
    const granted = grant ?? new provider.Grant({ accountId: details.session.accountId, clientId: client.id });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) granted.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) granted.addOIDCClaims(missing.missingOIDCClaims);
    return finish(request, reply, { consent: { grantId: await granted.save() } });
  });

  app.post(`${INTERACTION}/abort`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const organizationRequest = await options.organizationRequest(request, reply);
    await interactionOf(request, reply, organizationRequest);
    return finish(request, reply, { error: 'access_denied', error_description: 'The person did not sign in' });
  });
}
