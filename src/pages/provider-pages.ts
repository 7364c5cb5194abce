import type { Kysely } from 'kysely';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '../db/schema.js';
import { organizationsRepository } from '../tenancy/organizations.repository.js';
import { html, Html, type Html as HtmlType } from './html.js';
import { page, type PageContext } from './layout.js';
import { languageOf, type Languages } from './locales/index.js';

/**
 * The pages the OpenID Connect provider shows itself (a refusal, the question whether to sign out, the
 * sign-out done), in the pages' look and the browser's language. The provider writes them; these
 * functions give it their HTML.
 */
export function providerPages(db: Kysely<Database>, languages: Languages, organizationOf: (ctx: KoaContextWithOIDC) => Promise<string | undefined>) {
  const organizations = organizationsRepository(db);

  async function contextOf(ctx: KoaContextWithOIDC): Promise<PageContext> {
    const language = languageOf(languages, undefined, ctx.get('accept-language'));
    const orgId = await organizationOf(ctx).catch(() => undefined);
    const organization = orgId ? await organizations.find(orgId) : undefined;
    return {
      t: languages.get(language)!,
      language,
      ...(organization ? { organization: { id: organization.id, name: organization.name } } : {}),
      csrf: '',
    };
  }

  function send(ctx: KoaContextWithOIDC, body: HtmlType): void {
    ctx.type = 'html';
    ctx.body = body.text;
  }

  return {
    /** A request the provider refuses before any application can be told (an unknown client, a redirect URI not registered). */
    async renderError(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): Promise<void> {
      const context = await contextOf(ctx);
      const { t } = context;
      send(
        ctx,
        page(context, {
          title: t.errors.signInFailed,
          body: html`<div class="card">
            <p>${out.error_description ?? out.error}</p>
            <p class="hint">${out.error}</p>
          </div>`,
        }),
      );
    },

    /** Whether to sign out: the provider's form (its hidden fields, with its token against cross-site posts), and two buttons. */
    async logoutSource(ctx: KoaContextWithOIDC, form: string): Promise<void> {
      const context = await contextOf(ctx);
      const { t } = context;
      send(
        ctx,
        page(context, {
          title: t.signOut.confirmTitle(context.organization?.name ?? ctx.host),
          // The provider's own form markup, whose values it escaped itself.
          body: html`<div class="card">
            ${new Html(form)}
            <div class="actions">
              <button type="submit" form="op.logoutForm" value="yes" name="logout" autofocus>${t.signOut.confirm}</button>
              <button type="submit" form="op.logoutForm" class="secondary">${t.signOut.stay}</button>
            </div>
          </div>`,
        }),
      );
    },

    async postLogoutSuccessSource(ctx: KoaContextWithOIDC): Promise<void> {
      const context = await contextOf(ctx);
      send(ctx, page(context, { title: context.t.signOut.done, body: html`<div class="card"><p>${context.t.signIn.signedOut}</p></div>` }));
    },
  };
}
