import type { FastifySchemaValidationError } from 'fastify';

/**
 * The texts of what the route schemas refuse. The query parser gives a parameter sent more than
 * once as an array, so a parameter that takes one value fails its `string` type, which fastify
 * words as "querystring/last_id must be string": the client is told what it did instead. Anything
 * else keeps fastify's wording.
 */
export function schemaErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const texts = errors.map((e) => {
    const name = e.instancePath.slice(1);
    if (dataVar === 'querystring' && e.keyword === 'type' && e.params.type === 'string' && /^\w+$/.test(name)) {
      return `${name} is given more than once; give it once (a list as one comma-separated value)`;
    }
    return `${dataVar}${e.instancePath} ${e.message ?? 'is not valid'}`;
  });
  return new Error(texts.join(', '));
}
