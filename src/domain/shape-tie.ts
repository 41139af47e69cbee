import type { Static, TSchema } from '@sinclair/typebox';

/**
 * Compile-time ties between a hand-written type and the TypeBox schema of the same JSON shape,
 * for pairs where the type cannot simply be `Static<typeof Schema>` (the type lives in a lower
 * layer, or is narrower than the wire schema: a string union the schema documents as a string).
 *
 * `Tie<T, S>` is `true` only when T and the schema's type have the same keys, the same optional
 * keys (`?:` exactly where the schema has `Type.Optional`), and every value of T is a value of
 * the schema's type. `Same<T, S>` asks for mutual assignability on top. Use beside the schema:
 *
 *   const _price: Same<Price, typeof PriceSchema> = true;
 */

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** The keys of T declared optional. */
export type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];

export type Tie<T, S extends TSchema> =
  Exact<keyof T, keyof Static<S>> extends true
    ? Exact<OptionalKeys<T>, OptionalKeys<Static<S>>> extends true
      ? [T] extends [Static<S>]
        ? true
        : false
      : false
    : false;

export type Same<T, S extends TSchema> = Tie<T, S> extends true ? ([Static<S>] extends [T] ? true : false) : false;
