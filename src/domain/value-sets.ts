import { Kind, type SchemaOptions, type Static, type TUnsafe, Type, TypeRegistry } from '@sinclair/typebox';

/**
 * The string fields whose values the spec fixes, as schemas: each type is the schema's `Static<>`,
 * so the set is written once, for the checker, the serialisers and the OpenAPI document alike.
 */

/**
 * A string schema with a fixed set of values (`{"type":"string","enum":[...]}`), whose static type
 * is the union of those values. Rather than a union of literals (`anyOf` of `const`s), which
 * fast-json-stringify checks value by value against every branch as it writes: this one it writes
 * as a plain string, and the OpenAPI document lists the values.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: STRING_ENUM, type: 'string', enum: [...values] });
}

/** TypeBox's own checks (`Value.Check`, `Value.Errors`) know the kind as JSON Schema's `enum` does. */
const STRING_ENUM = 'StringEnum';
if (!TypeRegistry.Has(STRING_ENUM)) {
  TypeRegistry.Set<{ enum: string[] }>(
    STRING_ENUM,
    (schema, value) => typeof value === 'string' && schema.enum.includes(value),
  );
}

export const PARTICIPANT_TYPES = ['TYPE_TEAM', 'TYPE_PLAYER', 'TYPE_RESULT'] as const;
export const ParticipantTypeSchema = StringEnum(PARTICIPANT_TYPES);
export type ParticipantType = Static<typeof ParticipantTypeSchema>;

/** A Delta row's and a history row's change_type. */
export const ChangeTypeSchema = StringEnum(['new', 'price_change', 'line_change']);
export type ChangeType = Static<typeof ChangeTypeSchema>;

/** Schedule.game_type: baseball's doubleheaders and make-up games; omitted for ordinary games. */
export const GameTypeSchema = StringEnum(['doubleheader', 'makeup', 'doubleheader_makeup']);
export type GameType = Static<typeof GameTypeSchema>;
