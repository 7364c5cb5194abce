/** Post-processing of the generated OpenAPI document, shared by every resource. */
export type JsonSchema = Record<string, any>;
export interface OpenApiDocument {
  paths?: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, JsonSchema> };
  [key: string]: unknown;
}

/**
 * A section of the document: its name, which every operation in it lists in `tags`, and what it
 * holds, listed at the top of the document (readers and generated clients group operations by it).
 */
export interface ApiTag {
  name: string;
  description: string;
}

/** A change to the generated document (a resource describing its schemas better than the generator can). */
export type DocumentRewrite = (document: OpenApiDocument) => OpenApiDocument;

/** Every request body and response schema of the document, with a setter to replace it. */
export function* contentSchemas(
  document: OpenApiDocument,
): Generator<{ path: string; method: string; schema: JsonSchema; replace(next: JsonSchema): void }> {
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const contents = [operation?.requestBody?.content, ...Object.values(operation?.responses ?? {}).map((r: any) => r?.content)];
      for (const content of contents) {
        for (const media of Object.values<{ schema?: JsonSchema }>(content ?? {})) {
          if (media.schema) yield { path, method, schema: media.schema, replace: (next) => (media.schema = next) };
        }
      }
    }
  }
}

/**
 * A schema with an `$id` is a named component, but where it is a whole response the generator
 * inlines a copy; point those copies at the component instead, so every item has one definition.
 */
export function referenceComponents(document: OpenApiDocument): OpenApiDocument {
  const byText = new Map(Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [JSON.stringify(schema), name]));
  for (const { schema, replace } of contentSchemas(document)) {
    const name = byText.get(JSON.stringify(schema));
    if (name) replace({ $ref: `#/components/schemas/${name}` });
  }
  return document;
}

/**
 * `errorMessage` is our validator's wording for refusals, not part of the published contract;
 * `documentPattern` is a `pattern` the document states and the service checks itself (with a policy
 * the validator does not know, and in its own words), published as `pattern`.
 */
export function withoutValidatorAnnotations<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutValidatorAnnotations) as T;
  if (value === null || typeof value !== 'object') return value;
  const documented = 'documentPattern' in value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'errorMessage' && !(documented && key === 'pattern'))
      .map(([key, inner]) => [key === 'documentPattern' ? 'pattern' : key, withoutValidatorAnnotations(inner)]),
  ) as T;
}

/**
 * The example a reader sees (and the docs page pre-fills) for an operation's request body: one the
 * server accepts, where a sample made from the schema's patterns would be refused or look wrong.
 */
export function requestExample(path: string, method: string, example: unknown): DocumentRewrite {
  return (document) => {
    const media = document.paths?.[path]?.[method]?.requestBody?.content?.['application/json'];
    if (media) media.example = example;
    return document;
  };
}

/**
 * Adds keywords to an operation's JSON request body schema: rules between its properties that the
 * validator leaves to the service (which words the refusal), stated in the document all the same.
 */
export function requestRules(path: string, method: string, rules: JsonSchema): DocumentRewrite {
  return (document) => {
    const media = document.paths?.[path]?.[method]?.requestBody?.content?.['application/json'];
    const reference: unknown = media?.schema?.$ref;
    const components = document.components?.schemas;
    if (typeof reference === 'string' && components) {
      const name = reference.replace('#/components/schemas/', '');
      components[name] = { ...components[name], ...rules };
    } else if (media?.schema) media.schema = { ...media.schema, ...rules };
    return document;
  };
}
