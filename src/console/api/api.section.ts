import type { FastifyReply } from 'fastify';
import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from '../../auth/scopes.js';
import { tokensService } from '../../auth/tokens.service.js';
import { Invalid } from '../../lib/domain-errors.js';
import { clientsService, type ClientInfo } from '../../oauth/clients.service.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { dataTable, secretOnce, when } from '../console-page.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';

const SECTION = '/:orgId/console/api';

/** What the page says after a change, by the `done` of its address. */
const DONE: Record<string, string> = {
  'token-revoked': 'The token is revoked: requests with it are refused from now on.',
  'client-revoked': 'The client is revoked, with every token issued to it.',
};

function scopeBoxes(name: string): Html {
  return html`<fieldset>
    <legend>Scopes</legend>
    ${SCOPES.map(
      (scope) =>
        html`<label
          ><input type="checkbox" name="${name}" value="${scope}" ${scope === 'scim' ? html`` : html` checked`} /> <code>${scope}</code>:
          ${SCOPE_DESCRIPTIONS[scope]}</label
        >`,
    )}
  </fieldset>`;
}

/** The scopes a form ticked, each a known one; none is refused. */
function scopesOf(value: unknown): Scope[] {
  const ticked = [value ?? []].flat().filter((scope): scope is Scope => (SCOPES as readonly unknown[]).includes(scope));
  if (ticked.length === 0) throw new Invalid({ scopes: 'choose at least one scope' });
  return ticked;
}

function clientKind(client: ClientInfo): string {
  if (!client.redirectUris) return `API (${client.scopes.join(', ')})`;
  return client.public ? 'Sign-in, public (PKCE)' : 'Sign-in';
}

/**
 * The API tab: what v5 calls "the API tab of the account settings area". The organization's access
 * tokens and OAuth clients, made and revoked here as on the command line, through the same services;
 * a secret is shown once, as text with a copy button, never in an address.
 */
export const apiSection: ConsoleSection = {
  id: 'api',
  title: 'API',
  path: '/api',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    async function render(reply: FastifyReply, person: ConsoleRequest, shown: { top?: Html; error?: string } = {}, statusCode = 200) {
      const orgId = person.organization.id;
      const [tokens, clients] = await Promise.all([tokensService(tools.db).list(orgId), clientsService(tools.db).list(orgId)]);
      const base = `${tools.base(person)}/api`;
      const { context } = person;
      const body = html`${shown.top ?? html``}${notice('error', shown.error)}
        <section class="card" aria-labelledby="scopes-title">
          <h2 id="scopes-title">What each scope allows</h2>
          <dl class="facts">
            ${SCOPES.map(
              (scope) =>
                html`<dt><code>${scope}</code></dt>
                  <dd>${SCOPE_DESCRIPTIONS[scope]}</dd>`,
            )}
          </dl>
          <p class="hint">A program sends a token as <code>Authorization: Bearer &lt;token&gt;</code> with its requests to <code>/api/v5</code>.</p>
        </section>
        <section class="card" aria-labelledby="tokens-title">
          <h2 id="tokens-title">Access tokens</h2>
          ${dataTable('Access tokens', ['Name', 'Scopes', 'Created', 'Last used', 'Expires', 'State'], tokens, (token) => [
            token.name,
            token.scopes.join(', '),
            when(token.createdDate),
            when(token.lastUsedDate),
            when(token.expiresDate),
            token.revokedDate
              ? html`<span class="badge muted">revoked</span>`
              : html`<form
                  method="post"
                  action="${base}/tokens/${token.id}/revoke"
                  data-confirm="Revoke the token ${token.name}? Requests with it fail from then on."
                >
                  ${csrfField(context)}<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${token.name}</span></button>
                </form>`,
          ])}
          <h3>New token</h3>
          <form method="post" action="${base}/tokens">
            ${csrfField(context)}
            <div class="field"><label for="token-name">Name</label><input type="text" id="token-name" name="name" required maxlength="200" /></div>
            ${scopeBoxes('scopes')}
            <div class="field"><label for="token-expires">Expires (optional)</label><input type="date" id="token-expires" name="expires" /></div>
            <div class="actions"><button type="submit">Create the token</button></div>
          </form>
        </section>
        <section class="card" aria-labelledby="clients-title">
          <h2 id="clients-title">OAuth clients</h2>
          <p class="hint">
            An API client gets expiring tokens itself (client credentials, <code>POST /oauth/token</code>); a sign-in client is an application that
            signs your people in (OpenID Connect, discovery at <code>/.well-known/openid-configuration</code>).
          </p>
          ${dataTable('OAuth clients', ['Name', 'Id', 'Kind', 'Redirect URIs', 'Created', 'Last used', 'State'], clients, (client) => [
            client.name,
            html`<code>${client.id}</code>`,
            clientKind(client),
            html`${(client.redirectUris ?? []).map((uri) => html`<code>${uri}</code><br />`)}`,
            when(client.createdDate),
            when(client.lastUsedDate),
            client.revokedDate
              ? html`<span class="badge muted">revoked</span>`
              : html`<div class="actions">
                  ${
                    client.public
                      ? html``
                      : html`<form
                          method="post"
                          action="${base}/clients/${client.id}/rotate"
                          data-confirm="Give ${client.name} a new secret? The current one stops working at once."
                        >
                          ${csrfField(context)}<button type="submit" class="secondary">
                            New secret<span class="visually-hidden"> for ${client.name}</span>
                          </button>
                        </form>`
                  }
                  <form method="post" action="${base}/clients/${client.id}/revoke" data-confirm="Revoke ${client.name} and every token issued to it?">
                    ${csrfField(context)}<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${client.name}</span></button>
                  </form>
                </div>`,
          ])}
          <h3>New API client</h3>
          <form method="post" action="${base}/clients">
            ${csrfField(context)}
            <div class="field"><label for="client-name">Name</label><input type="text" id="client-name" name="name" required maxlength="200" /></div>
            ${scopeBoxes('scopes')}
            <div class="actions"><button type="submit">Create the API client</button></div>
          </form>
          <h3>New sign-in client</h3>
          <form method="post" action="${base}/clients">
            ${csrfField(context)}
            <div class="field"><label for="signin-name">Name</label><input type="text" id="signin-name" name="name" required maxlength="200" /></div>
            <div class="field">
              <label for="redirect-uris">Redirect URIs, one a line</label>
              <textarea id="redirect-uris" name="redirectUris" rows="3" required aria-describedby="redirect-hint"></textarea>
              <p class="hint" id="redirect-hint">
                https addresses; http only to 127.0.0.1 for a native app; or a private-use scheme such as com.example.app:/callback.
              </p>
            </div>
            <div class="field">
              <label for="logout-uris">After sign-out, one a line (optional)</label
              ><textarea id="logout-uris" name="postLogoutRedirectUris" rows="2"></textarea>
            </div>
            <label><input type="checkbox" name="public" value="true" /> A native or browser app that keeps no secret (PKCE only)</label>
            <div class="actions"><button type="submit">Create the sign-in client</button></div>
          </form>
        </section>`;
      return tools.sendConsolePage(reply, person, apiSection, { title: 'API', body }, statusCode);
    }

    const lines = (value: unknown) =>
      (typeof value === 'string' ? value : '')
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean);

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, apiSection);
      if (!person) return reply;
      const done = DONE[String((request.query as Record<string, unknown>).done)];
      return render(reply, person, done ? { top: notice('ok', done) } : {});
    });

    app.post(`${SECTION}/tokens`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, apiSection);
      if (!person) return reply;
      const { form } = person;
      const name = String(form.name ?? '').trim() || 'API token';
      const expires = typeof form.expires === 'string' && form.expires !== '' ? new Date(`${form.expires}T23:59:59Z`) : undefined;
      if (expires && (Number.isNaN(expires.getTime()) || expires.getTime() <= Date.now()))
        return render(reply, person, { error: 'The expiry must be a date in the future.' }, 400);
      let scopes: Scope[];
      try {
        scopes = scopesOf(form.scopes);
      } catch {
        return render(reply, person, { error: 'Choose at least one scope.' }, 400);
      }
      const { token } = await tokensService(tools.db).create(person.organization.id, {
        name: name.slice(0, 200),
        scopes,
        ...(expires ? { expiresDate: expires } : {}),
      });
      request.log.info({ orgId: person.organization.id, by: person.session.user_id }, 'access token created in the console');
      return render(reply, person, { top: secretOnce(`The token ${name} is made.`, token) }, 201);
    });

    app.post(`${SECTION}/tokens/:tokenId/revoke`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, apiSection);
      if (!person) return reply;
      const { tokenId } = request.params as { tokenId: string };
      if (!(await tokensService(tools.db).revoke(tokenId, person.organization.id)))
        return render(reply, person, { error: 'No such token in this organization.' }, 404);
      return reply.redirect(`${tools.base(person)}/api?done=token-revoked`, 303);
    });

    app.post(`${SECTION}/clients`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, apiSection);
      if (!person) return reply;
      const { form } = person;
      const redirectUris = lines(form.redirectUris);
      const name =
        String(form.name ?? '')
          .trim()
          .slice(0, 200) || undefined;
      try {
        const { secret, info } = await clientsService(tools.db).create(person.organization.id, {
          ...(name ? { name } : {}),
          ...(redirectUris.length > 0
            ? { redirectUris, postLogoutRedirectUris: lines(form.postLogoutRedirectUris), public: form.public === 'true' }
            : { scopes: scopesOf(form.scopes) }),
        });
        const made = html`${secret ? secretOnce(`The client ${info.name} is made. Its id is ${info.id}; its secret:`, secret) : notice('ok', `The public client ${info.name} is made. Its id is ${info.id}; it has no secret.`)}`;
        return await render(reply, person, { top: made }, 201);
      } catch (error) {
        if (error instanceof Invalid) return render(reply, person, { error: Object.values(error.fieldErrors).join(' ') }, 400);
        throw error;
      }
    });

    app.post(`${SECTION}/clients/:clientId/rotate`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, apiSection);
      if (!person) return reply;
      const { clientId } = request.params as { clientId: string };
      const rotated = await clientsService(tools.db).rotateSecret(person.organization.id, clientId);
      if (!rotated) return render(reply, person, { error: 'No such client in this organization, or it is revoked or public.' }, 404);
      return render(reply, person, { top: secretOnce(`${rotated.info.name} has a new secret; the former one no longer works.`, rotated.secret) });
    });

    app.post(`${SECTION}/clients/:clientId/revoke`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, apiSection);
      if (!person) return reply;
      const { clientId } = request.params as { clientId: string };
      if (!(await clientsService(tools.db).revoke(clientId, person.organization.id)))
        return render(reply, person, { error: 'No such client in this organization.' }, 404);
      return reply.redirect(`${tools.base(person)}/api?done=client-revoked`, 303);
    });
  },
};
