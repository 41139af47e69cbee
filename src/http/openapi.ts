import type { SwaggerOptions } from '@fastify/swagger';
import { DOCUMENT_TYPE, type DocumentedParam } from '../projection/param-schemas.ts';

/**
 * The OpenAPI document's set-up (served at /openapi.json): its header, the key schemes, one
 * operationId per route, no lock on keyless routes, and each parameter typed as the route reads it.
 */

/**
 * A stable operationId from a route's method and path, as client generators name their methods:
 * GET /api/v2/sports/:sportID/events/:date -> getV2SportsBySportIdEventsByDate.
 */
export function operationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((part) => part !== '' && part !== 'api')
    .flatMap((part) =>
      part.startsWith(':') ? ['by', part.slice(1).replace(/ID$/, 'Id')] : part.split(/[^A-Za-z0-9]+/),
    )
    .filter((w) => w !== '');
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

interface Parameter {
  in: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema?: Record<string, unknown>;
}

/**
 * A parameter whose schema carries DOCUMENT_TYPE (src/projection/param-schemas.ts) shows that type
 * instead of the string the route reads. Lists are comma lists in one value: form style, unexploded.
 */
function typeParameter(p: Parameter): void {
  const documented = p.schema?.[DOCUMENT_TYPE] as DocumentedParam | undefined;
  if (!documented) return;
  p.schema = documented.schema;
  if (documented.required) p.required = true;
  if (documented.schema.type === 'array') {
    p.style = 'form';
    p.explode = false;
  }
}

type Paths = Record<string, Record<string, { parameters?: Parameter[] }>>;

export function swaggerOptions(opts: { version: string; keyHeader: string; description: string }): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'oddsbase',
        description: opts.description,
        version: opts.version,
        license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' },
      },
      components: {
        securitySchemes: {
          serviceKey: { type: 'apiKey', in: 'header', name: opts.keyHeader },
          queryKey: { type: 'apiKey', in: 'query', name: 'key' },
        },
      },
      security: [{ serviceKey: [] }, { queryKey: [] }],
      // The WebSocket endpoints: served beside this document (src/stream/asyncapi.ts).
      externalDocs: { url: '/asyncapi.json', description: 'the WebSocket endpoints (AsyncAPI 3.0)' },
      // Relative: the document describes the server that serves it, whatever its address.
      servers: [{ url: '/', description: 'this server' }],
    },
    transform: ({ schema, url, route }) => ({
      url,
      schema: {
        ...schema,
        operationId: operationId(String(route.method), url),
        // The catalog, the probes and the docs need no key: no lock on them.
        ...(route.config?.public ? { security: [] } : {}),
      },
    }),
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const doc = documentObject.openapiObject;
      for (const operations of Object.values((doc.paths ?? {}) as Paths)) {
        for (const operation of Object.values(operations)) operation.parameters?.forEach(typeParameter);
      }
      return doc;
    },
  };
}
