import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { parse } from 'yaml';
import { SOCKET_PAYLOAD_SHAPES } from '../../src/wire/socket-payloads.js';

const WS_SOURCES = 'src/ws';
/** The functions whose returned object maps each request event of a namespace to its handler. */
const HANDLER_FACTORIES: Readonly<Record<string, string>> = { userHandlers: 'user', providerHandlers: 'provider' };
/** The variables holding each namespace, where the service emits to its clients. */
const NAMESPACE_VARIABLES: Readonly<Record<string, string>> = { users: 'user', providers: 'provider' };
/** Files whose emits go to one namespace's sockets through a field (`this.socket.emit`), not a namespace variable. */
const FILE_NAMESPACES: Readonly<Record<string, string>> = { 'order-subscriptions.ts': 'user' };

interface AsyncApiOperation {
  action: 'send' | 'receive';
  channel: { $ref: string };
  messages: { $ref: string }[];
  reply?: unknown;
}

function sourceFiles(): ts.SourceFile[] {
  return readdirSync(WS_SOURCES)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => {
      const path = join(WS_SOURCES, name);
      return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    });
}

function rootIdentifier(expression: ts.Expression): string | undefined {
  let current: ts.Expression = expression;
  for (;;) {
    if (ts.isIdentifier(current)) return current.text;
    if (ts.isPropertyAccessExpression(current) || ts.isCallExpression(current)) current = current.expression;
    else return undefined;
  }
}

/** `namespace request` for every handler, `namespace event` for every emit, read from the code's syntax tree. */
function eventsInCode(): { requests: Set<string>; emitted: Set<string> } {
  const requests = new Set<string>();
  const emitted = new Set<string>();
  const visit = (node: ts.Node, factory: string | undefined, file: string): void => {
    const enclosing =
      ts.isFunctionDeclaration(node) && node.name !== undefined ? HANDLER_FACTORIES[node.name.text] : factory;
    if (
      ts.isReturnStatement(node) &&
      enclosing !== undefined &&
      node.expression !== undefined &&
      ts.isObjectLiteralExpression(node.expression)
    ) {
      for (const property of node.expression.properties) {
        if (property.name !== undefined && ts.isIdentifier(property.name))
          requests.add(`${enclosing} ${property.name.text}`);
      }
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['emit', 'emitWithAck'].includes(node.expression.name.text)
    ) {
      const [event] = node.arguments;
      const namespace = NAMESPACE_VARIABLES[rootIdentifier(node.expression.expression) ?? ''] ?? FILE_NAMESPACES[file];
      if (event !== undefined && ts.isStringLiteral(event)) {
        assert.ok(namespace !== undefined, `emit('${event.text}') to a namespace this test cannot tell`);
        emitted.add(`${namespace} ${event.text}`);
      }
    }
    ts.forEachChild(node, (child) => visit(child, enclosing, file));
  };
  for (const file of sourceFiles()) visit(file, undefined, basename(file.fileName));
  return { requests, emitted };
}

function documented(): { requests: Set<string>; emitted: Set<string> } {
  const document = parse(readFileSync('docs/asyncapi.yaml', 'utf8')) as {
    asyncapi: string;
    channels: Record<string, { address: string; messages: Record<string, unknown> }>;
    operations: Record<string, AsyncApiOperation>;
  };
  assert.equal(document.asyncapi, '3.0.0');
  assert.deepEqual(
    Object.fromEntries(Object.entries(document.channels).map(([name, channel]) => [name, channel.address])),
    { user: '/user/v1', provider: '/provider/v1' },
  );
  const requests = new Set<string>();
  const emitted = new Set<string>();
  for (const [id, operation] of Object.entries(document.operations)) {
    const [channel, event] = id.split('.') as [string, string];
    assert.equal(operation.channel.$ref, `#/channels/${channel}`, id);
    assert.deepEqual(operation.messages, [{ $ref: `#/channels/${channel}/messages/${event}` }], id);
    assert.ok(event in (document.channels[channel]?.messages ?? {}), `${id}: no such message in the channel`);
    if (operation.action === 'receive') {
      assert.ok(operation.reply !== undefined, `${id}: every request is acknowledged`);
      requests.add(`${channel} ${event}`);
    } else {
      emitted.add(`${channel} ${event}`);
    }
  }
  return { requests, emitted };
}

test('docs/asyncapi.yaml lists exactly the requests each namespace handles and the events the service emits', () => {
  const code = eventsInCode();
  const document = documented();
  assert.ok(
    code.requests.has('user requestQuote') && code.requests.has('provider makerQuote'),
    [...code.requests].join(),
  );
  assert.deepEqual([...document.requests].sort(), [...code.requests].sort());
  assert.ok(code.emitted.has('user stateChanged'), [...code.emitted].join());
  assert.deepEqual([...document.emitted].sort(), [...code.emitted].sort());
});

/** What a schema accepts, without the words that only explain it. */
function validating(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => validating(item, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const { $ref: ref, ...rest } = schema as Record<string, unknown>;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    assert.ok(name in components, `${ref} is not a component schema`);
    return validating(components[name], components);
  }
  return Object.fromEntries(
    Object.entries(rest)
      .filter(([key]) => !['description', 'examples', 'title'].includes(key))
      .map(([key, value]) => [key, validating(value, components)]),
  );
}

test('each request payload docs/asyncapi.yaml states is the schema the service validates it with', () => {
  const document = parse(readFileSync('docs/asyncapi.yaml', 'utf8')) as {
    channels: Record<string, { messages: Record<string, { $ref: string }> }>;
    components: { schemas: Record<string, unknown>; messages: Record<string, { payload: unknown }> };
  };
  const handled = eventsInCode().requests;
  let compared = 0;
  for (const [namespace, shapes] of Object.entries(SOCKET_PAYLOAD_SHAPES)) {
    for (const [event, { schema }] of Object.entries(shapes)) {
      assert.ok(handled.has(`${namespace} ${event}`), `${namespace} ${event} has a shape but no handler`);
      const ref = document.channels[namespace]?.messages[event]?.$ref ?? '';
      const message = document.components.messages[ref.replace('#/components/messages/', '')];
      assert.ok(message !== undefined, `${namespace} ${event}: no message in docs/asyncapi.yaml`);
      assert.deepEqual(
        validating(message.payload, document.components.schemas),
        validating(schema, {}),
        `${namespace} ${event}`,
      );
      compared += 1;
    }
  }
  assert.ok(compared >= 8, `${compared} payloads compared`);
});
