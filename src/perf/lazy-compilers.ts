import ValidatorSelector from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { PLAIN } from './switch.ts';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** A compiler factory as fastify calls it: the shared schemas and options, then one route's schema. */
type Build<F> = (external: unknown, options: unknown) => (route: unknown) => F;
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;

/**
 * Fastify's own schema compilers (ajv for the request parts, fast-json-stringify for the answers),
 * each route's function compiled at its first call instead of all of them as the server starts to
 * listen: 1-2.5 s of every start on this machine went to compiling about 150 functions, most of
 * which no client calls soon. The trick: a function that compiles on its first call and keeps the
 * result. The plain twin: fastify's compilers as they are (every function compiled at start).
 * Invariant: the same compiler with the same options makes each function, so a request is checked
 * and an answer written alike; only a schema fastify could not compile fails later, on its route's
 * first use rather than at start. Guarded by bench/start.ts.
 */
export function lazyCompilers(): CompilersFactory | undefined {
  if (PLAIN) return undefined;
  const validators = ValidatorSelector() as unknown as Build<Validate>;
  const serializers = SerializerSelector() as unknown as Build<Serialize>;
  const lazy: { buildValidator: Build<Validate>; buildSerializer: Build<Serialize> } = {
    buildValidator: (external, options) => {
      const compile = validators(external, options);
      return (route) => {
        let made: Validate | undefined;
        // Fastify reads a failed check's errors from the function it was given.
        const validate: Validate = (data) => {
          made ??= compile(route);
          const ok = made(data);
          validate.errors = made.errors;
          return ok;
        };
        return validate;
      };
    },
    buildSerializer: (external, options) => {
      const compile = serializers(external, options);
      return (route) => {
        let made: Serialize | undefined;
        return (data) => (made ??= compile(route))(data);
      };
    },
  };
  return lazy as unknown as CompilersFactory;
}
