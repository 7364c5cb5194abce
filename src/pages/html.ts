/**
 * HTML written by the server. Every value put into a template is escaped unless it is HTML made by
 * this module already: a name such as `<script>` is shown as text, whatever page it reaches.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** A value in a template: HTML as it is, lists joined, nothing for null, undefined and false, anything else escaped text. */
type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0]!;
  for (let index = 0; index < values.length; index += 1) text += render(values[index]) + strings[index + 1]!;
  return new Html(text);
}
