/**
 * Reads an answer of the service against the JSON schema the server answers with (`src/wire`), by walking the
 * schema: no code is generated at run time, so it runs under a strict Content-Security-Policy (no `eval`, no
 * `new Function`) as well as in Node. Fields the schema does not name are let through unread, so the service
 * may add a field without breaking a client; a field missing, renamed or of another type is a fault.
 */

/** One way an answer is not of its shape: where (`details.unsignedFundingTx.to`) and what. */
export interface ShapeFault {
  readonly path: string;
  readonly problem: string;
}

/** The schema keywords this reader knows; a shape using another one throws instead of passing unread. */
const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'items',
  'minLength',
  'minimum',
  'maximum',
  'pattern',
  'description',
]);

type Schema = Readonly<Record<string, unknown>>;

/** The faults of `value` against `schema`; none when it is of the shape. */
export function shapeFaults(schema: object, value: unknown, path = ''): ShapeFault[] {
  const shape = schema as Schema;
  for (const keyword of Object.keys(shape)) {
    if (!KNOWN_KEYWORDS.has(keyword)) throw new Error(`the shape at '${path}' uses '${keyword}', which is not read`);
  }
  const fault = (problem: string): ShapeFault[] => [{ path, problem }];
  if (shape.type !== undefined && !typesOf(shape.type).some((type) => isOfType(value, type))) {
    return fault(`not ${typesOf(shape.type).join(' or ')}`);
  }
  if (shape.const !== undefined && value !== shape.const) return fault(`not ${JSON.stringify(shape.const)}`);
  if (Array.isArray(shape.enum) && !shape.enum.includes(value)) return fault('not one of the values it may take');
  if (typeof value === 'string') {
    if (typeof shape.minLength === 'number' && value.length < shape.minLength) return fault('too short');
    if (typeof shape.pattern === 'string' && !new RegExp(shape.pattern, 'u').test(value)) return fault('malformed');
  }
  if (typeof value === 'number') {
    if (typeof shape.minimum === 'number' && value < shape.minimum) return fault('too small');
    if (typeof shape.maximum === 'number' && value > shape.maximum) return fault('too large');
  }
  if (Array.isArray(shape.allOf)) {
    const faults = (shape.allOf as object[]).flatMap((part) => shapeFaults(part, value, path));
    if (faults.length > 0) return faults;
  }
  if (Array.isArray(shape.anyOf)) {
    const branches = (shape.anyOf as object[]).map((branch) => shapeFaults(branch, value, path));
    if (!branches.some((faults) => faults.length === 0)) return fault('of none of the shapes it may take');
  }
  if (Array.isArray(value) && shape.items !== undefined) {
    return value.flatMap((item, index) => shapeFaults(shape.items as object, item, `${path}[${index}]`));
  }
  if (isRecord(value)) return objectFaults(shape, value, path);
  return [];
}

function objectFaults(shape: Schema, value: Readonly<Record<string, unknown>>, path: string): ShapeFault[] {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  const required = Array.isArray(shape.required) ? (shape.required as string[]) : [];
  const missing = required
    .filter((key) => !Object.hasOwn(value, key))
    .map((key) => ({ path: at(key), problem: 'missing' }));
  const properties = isRecord(shape.properties) ? shape.properties : {};
  const wrong = Object.entries(properties).flatMap(([key, property]) =>
    Object.hasOwn(value, key) ? shapeFaults(property as object, value[key], at(key)) : [],
  );
  return [...missing, ...wrong];
}

function typesOf(type: unknown): string[] {
  return Array.isArray(type) ? (type as string[]) : [String(type)];
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
