/**
 * What the /docs page (Swagger UI) adds of its own so that everyone can use it, served as files of the
 * page ('self' under its Content Security Policy). test/http/docs-browser.test.ts runs axe-core on the
 * page in Chromium and fails on any serious or critical violation.
 */

/** The page's title: the browser's tab, its history and a screen reader's first words. */
export const DOCS_TITLE = 'Training Platform REST API: reference';

/**
 * Text and controls in colours of at least 4.5:1 against their background (WCAG 2.1 AA), where Swagger
 * UI's own fall short: white on the methods' and the version stamp's light colours, the links' light
 * blue, the authorize buttons' light green, the cancel buttons' light red, light greys.
 */
export const DOCS_CSS = `
.swagger-ui .info .title small.version-stamp { background-color: #2f6b00; }
.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui .scopes h2 a { color: #1f5f9f; }
.swagger-ui .opblock .opblock-summary-method { text-shadow: none; }
.swagger-ui .opblock.opblock-get .opblock-summary-method, .swagger-ui .btn.execute { background-color: #1f5f9f; border-color: #1f5f9f; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background-color: #136a43; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background-color: #8a4b00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background-color: #b01c1c; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background-color: #136a5f; }
.swagger-ui .btn.authorize { color: #136a43; border-color: #136a43; }
.swagger-ui .btn.authorize svg { fill: #136a43; }
.swagger-ui .btn.try-out__btn.cancel, .swagger-ui .btn.cancel { color: #a30000; border-color: #a30000; }
.swagger-ui .parameter__in, .swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a4a4a; }
.swagger-ui .download-contents { background-color: #4a4f5e; }
`;

/**
 * Names the controls Swagger UI draws without one, as it draws them: the dialog's close button, the
 * servers' select, each parameter's select (by the parameter's name), the copy buttons and the request
 * body; lets the keyboard reach (and so scroll) the code blocks; and drops the label of the authorize
 * buttons ("Apply credentials"), which hides the text they show.
 */
export const DOCS_SCRIPT = `(() => {
  const name = (root) => {
    for (const close of root.querySelectorAll('button.close-modal:not([aria-label])')) close.setAttribute('aria-label', 'Close');
    for (const select of root.querySelectorAll('select#servers:not([aria-label])')) select.setAttribute('aria-label', 'Server');
    for (const select of root.querySelectorAll('.parameters-col_description select:not([aria-label])')) {
      const parameter = select.closest('tr') && select.closest('tr').querySelector('.parameter__name');
      if (parameter) select.setAttribute('aria-label', parameter.textContent.replace('*', '').trim());
    }
    for (const button of root.querySelectorAll('.copy-to-clipboard button:not([aria-label])')) button.setAttribute('aria-label', 'Copy to the clipboard');
    for (const body of root.querySelectorAll('textarea.body-param__text:not([aria-label])')) body.setAttribute('aria-label', 'Request body');
    for (const code of root.querySelectorAll('.highlight-code pre:not([tabindex])')) code.setAttribute('tabindex', '0');
    for (const button of root.querySelectorAll('button.authorize[aria-label]')) button.removeAttribute('aria-label');
  };
  new MutationObserver(() => name(document)).observe(document.documentElement, { childList: true, subtree: true });
})();
`;
