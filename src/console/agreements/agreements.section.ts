import type { FastifyReply } from 'fastify';
import { NotFound, type FieldErrors } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { agreementToAccept } from '../../pages/account.routes.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import { AGREEMENT_TYPES, PutAgreement, type Agreement, type AgreementType } from '../../resources/agreements/agreements.schemas.js';
import { agreementsService, type AgreementCounts } from '../../resources/agreements/agreements.service.js';
import { when } from '../console-page.js';
import { checkboxControl, formValue, inputControl, refusalNotice, textAreaControl } from '../form-controls.js';
import { refusedOr } from '../form-refusal.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';

const SECTION = '/:orgId/console/agreements';

const validAgreement = bodyValidator(PutAgreement, DEFAULT_PASSWORD_POLICY);

const TITLES: Record<AgreementType, string> = { standard: 'Standard agreement', custom: 'Custom agreement' };

const people = (count: number) => (count === 1 ? '1 active person' : `${count} active people`);

/** An agreement's form as shown: what it reads now, or what was typed. */
interface Draft {
  title: string;
  text: string;
  required: boolean;
}

/** What a card shows beside its form: a refusal, or the preview of what was typed. */
interface CardState {
  draft?: Draft;
  refused?: { message: string; fieldErrors: FieldErrors };
  previewed?: boolean;
}

/** Who a revision asks again, and who is asked already, in words. */
function whoIsAsked(agreement: Agreement | undefined, counts: AgreementCounts): Html {
  if (!agreement) {
    return html`<p>Not defined yet. Once it is, each of the ${people(counts.active)} will be asked to agree to it at their next sign-in.</p>`;
  }
  const asked = agreement.required ? 'they are asked at their next sign-in' : 'it is not required, so they are not asked';
  return html`<ul class="who">
    <li>
      <strong>${people(counts.agreedToCurrent)}</strong> agreed to it as it reads now: if you change its title or text, they will be asked to agree
      again at their next sign-in${agreement.required ? '' : ' (once it is required)'}.
    </li>
    <li><strong>${people(counts.agreedToEarlier)}</strong> agreed to an earlier text: ${asked}.</li>
    <li><strong>${people(counts.neverAgreed)}</strong> never agreed: ${asked}.</li>
  </ul>`;
}

/** After a save: who is asked now. */
function savedNotice(type: AgreementType, agreement: Agreement | undefined, counts: AgreementCounts): Html {
  if (!agreement) return html``;
  const waiting = counts.agreedToEarlier + counts.neverAgreed;
  return notice(
    'ok',
    agreement.required
      ? `The ${type} agreement is saved. ${people(waiting)} will be asked to agree to it at their next sign-in: ${counts.agreedToEarlier} who agreed to an earlier text and ${counts.neverAgreed} who never agreed.`
      : `The ${type} agreement is saved. It is not required: nobody is asked to agree to it at sign-in.`,
  );
}

/**
 * The standard and the custom agreement: their title, text and (for the standard one) whether people
 * must agree, revised through the same service as PUT /agreements/{type}, with a preview of the text
 * as people meet it at sign-in and, before and after a revision, who is asked to agree again.
 */
export const agreementsSection: ConsoleSection = {
  id: 'agreements',
  title: 'Agreements',
  path: '/agreements',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const agreements = agreementsService(tools.db);

    async function card(person: ConsoleRequest, type: AgreementType, counts: AgreementCounts, state: CardState, saved: boolean): Promise<Html> {
      const { caller, context } = person;
      const outcome = await refusedOr(() => agreements.get(caller, type));
      const agreement = outcome.refusal ? undefined : outcome.value;
      const draft = state.draft ?? { title: agreement?.title ?? '', text: agreement?.text ?? '', required: agreement?.required ?? true };
      const errors = state.refused?.fieldErrors ?? {};
      const id = (name: string) => `${type}-${name}`;
      const changesText = agreement !== undefined && (draft.title !== agreement.title || draft.text !== agreement.text);
      const shown = draft.title.trim() !== '' || draft.text.trim() !== '';
      return html`<section class="card" aria-labelledby="${id('title')}-heading">
        <h2 id="${id('title')}-heading">${TITLES[type]}</h2>
        ${saved ? savedNotice(type, agreement, counts) : html``} ${state.refused ? refusalNotice(state.refused.message, errors) : html``}
        ${
          agreement
            ? html`<p class="hint">
                Defined ${when(agreement.createdDate)}${agreement.updatedDate ? html`, last revised ${when(agreement.updatedDate)}` : html``}.
              </p>`
            : html``
        }
        ${whoIsAsked(agreement, counts)}
        <form method="post" action="${tools.base(person)}/agreements/${type}">
          ${csrfField(context)}
          ${inputControl({ id: id('title'), name: 'title', label: 'Title', value: draft.title, problem: errors.title, attributes: html` maxlength="255"` })}
          ${textAreaControl({
            id: id('text'),
            name: 'text',
            label: 'Text',
            value: draft.text,
            problem: errors.text,
            hint: 'Shown as written, line breaks kept.',
            rows: 10,
          })}
          ${
            type === 'custom'
              ? html`<p class="hint">The custom agreement is always required: people must agree to it to sign in.</p>`
              : checkboxControl({
                  id: id('required'),
                  name: 'required',
                  label: 'Required: people must agree to it to sign in',
                  checked: draft.required,
                  problem: errors.required,
                })
          }
          <div class="actions">
            <button type="submit">Save the ${type} agreement</button>
            <button type="submit" name="preview" value="true" class="secondary">
              Preview<span class="visually-hidden"> the ${type} agreement</span>
            </button>
          </div>
        </form>
        ${
          shown
            ? html`<section class="preview" aria-labelledby="${id('preview')}">
                <h3 id="${id('preview')}">As people see it at sign-in${state.previewed ? ' (not saved)' : ''}</h3>
                ${
                  state.previewed && changesText
                    ? html`<p class="notice ok" role="status">
                        Saved so, this text would be asked again of the ${people(counts.agreedToCurrent)} who agreed to the current one.
                      </p>`
                    : html``
                }
                <div class="preview-frame" data-preview-title="#${id('title')}" data-preview-text="#${id('text')}">
                  ${agreementToAccept({ type, title: draft.title, text: draft.text }, context.t, false, true)}
                </div>
              </section>`
            : html``
        }
      </section>`;
    }

    async function render(
      reply: FastifyReply,
      person: ConsoleRequest,
      states: Partial<Record<AgreementType, CardState>>,
      saved?: AgreementType,
      statusCode = 200,
    ) {
      const counts = await agreements.agreementCounts(person.caller);
      const cards = await Promise.all(AGREEMENT_TYPES.map((type) => card(person, type, counts[type], states[type] ?? {}, saved === type)));
      const body = html`<p>
          People agree to these at sign-in: a required agreement is asked of each person who has not agreed to it as it reads now. The standard one
          every organization has; the custom one is yours to define.
        </p>
        ${cards}`;
      return tools.sendConsolePage(reply, person, agreementsSection, { title: 'Agreements', body }, statusCode);
    }

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, agreementsSection);
      if (!person) return reply;
      const query = request.query as Record<string, unknown>;
      const saved = query.done === 'saved' ? AGREEMENT_TYPES.find((type) => type === query.type) : undefined;
      return render(reply, person, {}, saved);
    });

    app.post(`${SECTION}/:type`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, agreementsSection);
      if (!person) return reply;
      const type = AGREEMENT_TYPES.find((known) => known === (request.params as { type: string }).type);
      if (!type) throw new NotFound();
      const { form } = person;
      const draft: Draft = {
        title: formValue(form, 'title'),
        text: formValue(form, 'text'),
        required: type === 'custom' || formValue(form, 'required') === 'true',
      };
      if (formValue(form, 'preview') === 'true') return render(reply, person, { [type]: { draft, previewed: true } });
      const body = { title: draft.title.trim(), text: draft.text, ...(type === 'standard' ? { required: draft.required } : {}) };
      const outcome = await refusedOr(async () => {
        validAgreement(body);
        await agreements.put(person.caller, type, body);
      });
      if (outcome.refusal) return render(reply, person, { [type]: { draft, refused: outcome.refusal } }, undefined, outcome.refusal.statusCode);
      return reply.redirect(`${tools.base(person)}/agreements?done=saved&type=${type}#${type}-title-heading`, 303);
    });
  },
};
