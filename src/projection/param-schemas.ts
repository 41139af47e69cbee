import { Type } from '@sinclair/typebox';

/**
 * Route parameter schemas. Every query and path parameter reaches its route as text, read by the
 * route's own parser (params.ts), which words each refusal the spec's way; fastify's validator only
 * sees a string. What the parameter means (an integer and its bounds, a boolean, an enum, a comma
 * list) rides along under DOCUMENT_TYPE, an annotation the validator ignores (app.ts declares it)
 * and the OpenAPI document shows in the string's place (src/http/openapi.ts).
 */

export const DOCUMENT_TYPE = 'x-document-type';

/** What DOCUMENT_TYPE holds: the parameter's schema in the document, and whether it is required. */
export interface DocumentedParam {
  schema: Record<string, unknown>;
  required?: boolean;
}

interface Options {
  /** The route answers 400 without it (the validator still lets it through, for that wording). */
  required?: boolean;
  default?: unknown;
}

/** A parameter read as text and shown in the document as `schema`. */
export const documentedParam = (description: string, schema: Record<string, unknown>, opts: Options = {}) => {
  const documented: DocumentedParam = {
    schema: opts.default === undefined ? schema : { ...schema, default: opts.default },
    ...(opts.required ? { required: true } : {}),
  };
  return Type.Optional(Type.String({ description, [DOCUMENT_TYPE]: documented }));
};

/** Highest id a comma list of ids takes (params.ts: at most nine digits). */
const MAX_LIST_ID = 999_999_999;

/** Free text: a cursor, an id of the spec's string type, a line value. */
export const queryParam = (description: string, opts?: Options) =>
  documentedParam(description, { type: 'string' }, opts);

export const intParam = (description: string, minimum: number, maximum: number, opts?: Options) =>
  documentedParam(description, { type: 'integer', minimum, maximum }, opts);

/** A page size: `what` per response, its default and its most. */
export const limitParam = (what: string, byDefault: number, most: number) =>
  intParam(`${what}, default ${byDefault}, at most ${most}`, 1, most, { default: byDefault });

/** true/false (1/0 are taken too). */
export const boolParam = (description: string) => documentedParam(description, { type: 'boolean', default: false });

export const enumParam = (description: string, values: readonly string[], opts?: Options) =>
  documentedParam(description, { type: 'string', enum: [...values] }, opts);

/** A comma-separated list of integer ids, sent as one value (`market_ids=1,2,3`). */
export const intListParam = (description: string, maxItems?: number, opts?: Options) =>
  documentedParam(
    description,
    {
      type: 'array',
      items: { type: 'integer', minimum: 0, maximum: MAX_LIST_ID },
      ...(maxItems === undefined ? {} : { maxItems }),
    },
    opts,
  );

/** A comma-separated list of strings (event ids), sent as one value. */
export const textListParam = (description: string, maxItems?: number, opts?: Options) =>
  documentedParam(
    description,
    { type: 'array', items: { type: 'string' }, ...(maxItems === undefined ? {} : { maxItems }) },
    opts,
  );

/** A comma-separated list of values from a fixed set, sent as one value. */
export const enumListParam = (description: string, values: readonly string[]) =>
  documentedParam(description, { type: 'array', items: { type: 'string', enum: [...values] } });

/** A calendar date, YYYY-MM-DD. */
export const dateParam = (description: string, opts?: Options) =>
  documentedParam(description, { type: 'string', format: 'date' }, opts);

/** An RFC 3339 time. */
export const timeParam = (description: string) => documentedParam(description, { type: 'string', format: 'date-time' });

/** The offset parameter: minutes that shift the day boundary, within one day either way. */
export const offsetParam = (description = 'minutes that shift the day boundary; default 0') =>
  intParam(description, -1440, 1440, { default: 0 });

/**
 * The `include` parameter: a comma list of `values`, or the parameter repeated, which the query
 * parser hands over as an array. The document shows the comma list.
 */
export const includeParam = (description: string, values: readonly string[]) =>
  Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description,
      [DOCUMENT_TYPE]: {
        schema: { type: 'array', items: { type: 'string', enum: [...values] } },
      } satisfies DocumentedParam,
    }),
  );

/** A path parameter read as an integer (a sport, team, player or market id). */
export const intPathParam = (description?: string) =>
  Type.String({
    ...(description ? { description } : {}),
    [DOCUMENT_TYPE]: { schema: { type: 'integer', minimum: 0 } } satisfies DocumentedParam,
  });

/** A path parameter holding a calendar date, YYYY-MM-DD. */
export const datePathParam = (description = 'YYYY-MM-DD') =>
  Type.String({
    description,
    [DOCUMENT_TYPE]: { schema: { type: 'string', format: 'date' } } satisfies DocumentedParam,
  });
