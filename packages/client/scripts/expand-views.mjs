// The answer types of src/wire/response-shapes.ts are derived from the JSON schemas with json-schema-to-ts's
// FromSchema, a type-level program a wallet should not need to install. This writes each such alias of the emitted
// declarations as the plain type the compiler computes for it, so the package's types are still the server's
// schemas, read by the compiler, and need nothing beyond the package's peers.
import ts from 'typescript';

const FROM_SCHEMA_ALIAS = /^export type (\w+) = FromSchema<typeof \w+>;$/gmu;
const FROM_SCHEMA_IMPORT = "import type { FromSchema } from 'json-schema-to-ts';\n";

/**
 * The rewrite of the declarations emitted for `sourceFile` (response-shapes.ts) with its aliases expanded, as
 * `program`'s checker computes them.
 */
export function viewExpander(program, sourceFile) {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(sourceFile);
  if (source === undefined) throw new Error(`${sourceFile} is not in the program`);
  const expanded = new Map();
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const type = checker.getTypeAtLocation(statement.name);
    const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias;
    expanded.set(statement.name.text, checker.typeToString(type, statement, flags));
  }
  return (declarations) => {
    if (!declarations.includes(FROM_SCHEMA_IMPORT))
      throw new Error(`${sourceFile}'s declarations do not import FromSchema`);
    const rewritten = declarations.replace(FROM_SCHEMA_IMPORT, '').replace(FROM_SCHEMA_ALIAS, (_line, name) => {
      const type = expanded.get(name);
      if (type === undefined || type.includes('FromSchema') || type === 'any')
        throw new Error(`${name} did not expand`);
      return `export type ${name} = ${type};`;
    });
    if (rewritten.includes('FromSchema')) throw new Error(`${sourceFile}'s declarations still name FromSchema`);
    return rewritten;
  };
}
