import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokensService } from '../../auth/tokens.service.js';
import { NotFound } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import { userfieldsService } from '../../resources/userfields/userfields.service.js';
import { scimBase } from '../../scim/base-url.js';
import { UpdateAttributeMappings } from '../../resources/attribute-mappings/attribute-mappings.schemas.js';
import { attributeMappingsService } from '../../resources/attribute-mappings/attribute-mappings.service.js';
import { scimRequestLog, SCIM_REQUESTS_KEPT } from '../../scim/request-log.js';
import { secretOnce } from '../console-page.js';
import { dataTable, when } from '../console-page.js';
import { everyItem } from '../every-item.js';
import { buttonForm, formValue, inputControl, refusalNotice, selectControl } from '../form-controls.js';
import { refusedOr, type FormRefusal } from '../form-refusal.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';

const SECTION = '/:orgId/console/scim';

const validMappings = bodyValidator(UpdateAttributeMappings, DEFAULT_PASSWORD_POLICY);

const DONE: Record<string, string> = {
  mapped: 'The mapping is saved: what the identity provider sends of the attribute is stored as the userfield from its next request.',
  unmapped: 'The mapping is removed: the userfield keeps its values, and the attribute is no longer stored.',
};

/** A mapping as its form shows it: what was typed, and why it was refused. */
interface MappingRefusal {
  attribute: string;
  userfieldId: string;
  refusal: FormRefusal;
}

/**
 * SCIM for organization administrators: the token and base URL an identity provider (Okta, Microsoft
 * Entra ID, ...) is given, the attribute mappings of /scimattributes onto userfields, and the last
 * requests the provider made, with what they were answered.
 */
export const scimSection: ConsoleSection = {
  id: 'scim',
  title: 'SCIM',
  path: '/scim',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const tokens = tokensService(tools.db);
    const mappings = attributeMappingsService(tools.db);
    const fields = userfieldsService(tools.db);
    const requestLog = scimRequestLog(tools.db);
    const base = (person: ConsoleRequest) => `${tools.base(person)}/scim`;
    const admitted = (request: FastifyRequest, reply: FastifyReply) => tools.consoleRequest(request, reply, scimSection);

    /** The organization's SCIM tokens that still work. */
    async function scimTokens(orgId: string) {
      const at = new Date().toISOString();
      return (await tokens.list(orgId)).filter(
        (token) => token.scopes.includes('scim') && !token.revokedDate && !(token.expiresDate && token.expiresDate <= at),
      );
    }

    async function render(
      request: FastifyRequest,
      reply: FastifyReply,
      person: ConsoleRequest,
      shown: { top?: Html; mapping?: MappingRefusal } = {},
      statusCode = 200,
    ) {
      const orgId = person.organization.id;
      const [active, mapped, userfields, requests, every] = await Promise.all([
        scimTokens(orgId),
        mappings.get(person.caller),
        everyItem((paging) => fields.list(person.caller, {}, paging)),
        requestLog.latest(orgId),
        tokens.list(orgId),
      ]);
      const names = new Map(userfields.map((field) => [field.id, field.name ?? field.id]));
      const tokenNames = new Map(every.map((token) => [token.id, token.name]));
      const url = base(person);
      const { context } = person;
      const endpoint = scimBase(request);
      const refused = shown.mapping;
      const body = html`${shown.top ?? html``}
        <section class="card" aria-labelledby="connect-title">
          <h2 id="connect-title">Connect an identity provider</h2>
          <dl class="facts">
            <dt>Base URL</dt>
            <dd><code id="scim-base">${endpoint}</code> <button type="button" class="secondary" data-copy="#scim-base" hidden>Copy</button></dd>
            <dt>Authentication</dt>
            <dd>A bearer token with the <code>scim</code> scope (below), sent as <code>Authorization: Bearer &lt;token&gt;</code></dd>
          </dl>
          <ul>
            <li>
              <strong>Okta</strong>: in the app's Provisioning tab, <em>SCIM connector base URL</em> is the base URL,
              <em>Unique identifier field for users</em> is <code>userName</code>, <em>Authentication Mode</em> is <em>HTTP Header</em>
              with the token.
            </li>
            <li>
              <strong>Microsoft Entra ID</strong>: in the enterprise application's Provisioning, <em>Tenant URL</em> is the base URL and
              <em>Secret Token</em> the token; <em>Test Connection</em> then shows below as a request.
            </li>
          </ul>
        </section>
        <section class="card" aria-labelledby="tokens-title">
          <h2 id="tokens-title">SCIM tokens</h2>
          ${dataTable(
            'SCIM tokens',
            ['Name', 'Created', 'Last used', 'Expires', ''],
            active,
            (token) => [
              token.name,
              when(token.createdDate),
              when(token.lastUsedDate),
              when(token.expiresDate),
              buttonForm(context, `${url}/tokens/${token.id}/rotate`, 'New token', `in place of ${token.name}`, {
                confirm: `Replace ${token.name} by a new token? The identity provider is refused until it is given the new one.`,
              }),
            ],
            'No SCIM token yet: make one, and give it to the identity provider.',
          )}
          <p class="hint">A token is revoked on the API page. A new token in place of one keeps its name and expiry, and revokes it.</p>
          <form method="post" action="${url}/tokens" class="inline-fields">
            ${csrfField(context)}
            ${inputControl({ id: 'scim-token-name', name: 'name', label: 'Name', value: 'SCIM', attributes: html` required maxlength="200"` })}
            <div class="field"><button type="submit">Create a SCIM token</button></div>
          </form>
        </section>
        <section class="card" aria-labelledby="mappings-title">
          <h2 id="mappings-title">Attribute mappings</h2>
          <p class="hint">
            What the identity provider sends of these SCIM attributes is stored as the person's value of the userfield (<code
              >GET /scimattributes</code
            >
            answers the same). Email, names, userName, active and the like fill the person's own properties and need no mapping.
          </p>
          ${dataTable(
            'Attribute mappings',
            ['SCIM attribute', 'Userfield', ''],
            Object.entries(mapped),
            ([attribute, fieldId]) => [
              html`<code>${attribute}</code>`,
              names.get(fieldId) ?? fieldId,
              buttonForm(context, `${url}/mappings`, 'Remove', `the mapping of ${attribute}`, { fields: { attribute, userfieldId: '' } }),
            ],
            'No attribute is mapped.',
          )}
          ${refused ? refusalNotice(`The mapping is not saved: ${refused.refusal.message}`, {}) : html``}
          <form method="post" action="${url}/mappings" class="inline-fields">
            ${csrfField(context)}
            ${inputControl({
              id: 'mapping-attribute',
              name: 'attribute',
              label: 'SCIM attribute',
              value: refused?.attribute ?? '',
              problem: refused ? (Object.values(refused.refusal.fieldErrors)[0] ?? refused.refusal.message) : undefined,
              hint: html`Such as <code>title</code>, <code>phoneNumbers[type eq "work"].value</code> or
                <code>urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department</code>`,
              attributes: html` required maxlength="300" spellcheck="false"`,
            })}
            ${selectControl({
              id: 'mapping-userfield',
              name: 'userfieldId',
              label: 'Userfield',
              value: refused?.userfieldId ?? '',
              choices: [
                ['', 'None: remove the mapping'],
                ...userfields.filter((field) => field.type !== 'message').map((field) => [field.id, field.name ?? field.id] as const),
              ],
            })}
            <div class="field"><button type="submit" class="secondary">Save the mapping</button></div>
          </form>
        </section>
        <section class="card" aria-labelledby="requests-title">
          <h2 id="requests-title">Last requests of the identity provider</h2>
          <p class="hint">
            The latest ${SCIM_REQUESTS_KEPT} requests to the base URL with a token of the organization, newest first; never their bodies.
          </p>
          ${dataTable(
            'Last SCIM requests',
            ['When', 'Request', 'Status', 'Duration', 'Token', 'Client'],
            requests,
            (entry) => [
              when(entry.createdDate),
              html`<code>${entry.method} ${entry.path}</code>`,
              html`<span class="badge ${entry.status < 400 ? 'ok' : 'error'}">${entry.status}</span>`,
              `${entry.durationMs} ms`,
              entry.tokenId ? (tokenNames.get(entry.tokenId) ?? '') : '',
              entry.userAgent ?? '',
            ],
            'No request yet.',
          )}
        </section>`;
      return tools.sendConsolePage(reply, person, scimSection, { title: 'SCIM', body }, statusCode);
    }

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return render(request, reply, person, { top: notice('ok', DONE[String((request.query as Record<string, unknown>).done)]) });
    });

    app.post(`${SECTION}/tokens`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const name = formValue(person.form, 'name').trim().slice(0, 200) || 'SCIM';
      const { token } = await tokens.create(person.organization.id, { name, scopes: ['scim'] });
      request.log.info({ orgId: person.organization.id, by: person.session.user_id }, 'SCIM token created in the console');
      return render(request, reply, person, { top: secretOnce(`The SCIM token ${name} is made: give it to the identity provider.`, token) }, 201);
    });

    app.post(`${SECTION}/tokens/:tokenId/rotate`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const { tokenId } = request.params as { tokenId: string };
      // Only a working SCIM token of the organization; any other is unknown here.
      if (!(await scimTokens(person.organization.id)).some((token) => token.id === tokenId)) throw new NotFound();
      const rotated = await tokens.rotate(tokenId);
      if (typeof rotated === 'string') throw new NotFound(); // revoked meanwhile
      request.log.info({ orgId: person.organization.id, by: person.session.user_id }, 'SCIM token replaced in the console');
      const top = secretOnce(
        `${rotated.info.name} is replaced: give the identity provider this token, the former one no longer works.`,
        rotated.token,
      );
      return render(request, reply, person, { top });
    });

    app.post(`${SECTION}/mappings`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const attribute = formValue(person.form, 'attribute');
      const userfieldId = formValue(person.form, 'userfieldId');
      const input = { [attribute.trim()]: userfieldId === '' ? null : userfieldId };
      const outcome = await refusedOr(async () => {
        validMappings(input);
        await mappings.update(person.caller, input);
      });
      if (outcome.refusal)
        return render(request, reply, person, { mapping: { attribute, userfieldId, refusal: outcome.refusal } }, outcome.refusal.statusCode);
      return reply.redirect(`${base(person)}?done=${userfieldId === '' ? 'unmapped' : 'mapped'}`, 303);
    });
  },
};
