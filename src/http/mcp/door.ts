// The JSON-RPC 2.0 / MCP door: POST /api/mcp, Streamable HTTP, stateless, JSON responses, both
// protocol eras on one endpoint (2026-07-28, and 2025-06-18 / 2025-11-25 with initialize).
//
// The protocol is the official SDK v2 (mcp-server.ts builds its McpServer per request). The door
// is what the contract promises (README.md, docs/architecture.md) and the SDK does not give: a
// bare curl call (no Accept header, no initialize first) gets a plain JSON answer; 2025 batches
// are answered as arrays; 2025 notifications get 202; malformed JSON is -32700 and a non-request
// -32600. Its parts: the JSON-RPC framing (framing.ts), the eras and the SDK's entry for each
// (eras.ts), the 2025 cached tools/call (cached-call.ts), the admission path (admission.ts).

import { ProtocolErrorCode, type InboundModernRoute } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthResult } from '../../access/access.js';
import type { ApiError } from '../../kernel/errors.js';
import { TOOLS } from '../../tools/registry.js';
import { keyRefusal } from '../gate.js';
import type { ToolRunner } from '../invoke.js';
import { unknownToolMessage } from '../mcp-errors.js';
import { createMcpService, type McpCall } from '../mcp-server.js';
import { answerRefused, createAdmission, refusalAnswer, refusedMessage, refuse, type AdmissionDeps } from './admission.js';
import { TOOL_LIST, TOOL_NAMES } from './cached-call.js';
import { createLegacyEra, createModernEra, eraOf } from './eras.js';
import { argumentsOf, bodyOf, CONNECTION_CLOSED, errorAnswer, isHealthCall, type Answer } from './framing.js';

export interface McpDeps extends AdmissionDeps {
  runner: ToolRunner;
  maxBatch: number;
  version: string;
}

export async function mcpRoutes(app: FastifyInstance, deps: McpDeps): Promise<void> {
  // The body is read as text whatever its content type, so malformed JSON becomes the
  // JSON-RPC parse error (-32700) rather than a framework error page.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.decorateRequest('auth', null);

  const service = createMcpService({ runner: deps.runner, clock: deps.clock, version: deps.version, tools: TOOLS });
  const onerror = (err: Error): void => app.log.debug({ errName: err.name, err: err.message }, 'mcp: request refused or failed in the SDK');
  const modern = createModernEra(service, onerror);
  app.addHook('onClose', async () => modern.close());
  const answerLegacy = createLegacyEra(service);
  const { checkRequest, admitted, refuseLate } = createAdmission(app, deps);

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .type('application/json')
      .send(errorAnswer(null, CONNECTION_CLOSED, 'this endpoint is stateless: POST JSON-RPC messages; no SSE stream or session'));
  app.get('/api/mcp', notAllowed);
  app.delete('/api/mcp', notAllowed);

  app.post('/api/mcp', { onRequest: (request, reply, done) => checkRequest(request, reply, done) }, async (request, reply) => {
    reply.type('application/json');
    const auth = request.auth as AuthResult;
    let payload: unknown;
    try {
      payload = JSON.parse(typeof request.body === 'string' ? request.body : '');
    } catch {
      // A refused key gets no further: what it sent cannot be a health call.
      if (!auth.ok) return refuseLate(reply, keyRefusal(auth));
      return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.ParseError, 'Parse error: the body is not valid JSON'));
    }
    const batch = Array.isArray(payload);
    const messages: unknown[] = batch ? (payload as unknown[]) : [payload];
    // A well-formed unknown or revoked key may ask health alone (to be told valid: false); anything else
    // with it, a batch of health calls included, is refused whole.
    if (!auth.ok && (batch || !isHealthCall(payload))) return refuseLate(reply, keyRefusal(auth));
    if (messages.length === 0) return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.InvalidRequest, 'Invalid Request: empty batch'));
    if (messages.length > deps.maxBatch) {
      return reply.code(400).send(errorAnswer(null, ProtocolErrorCode.InvalidRequest, `Invalid Request: at most ${deps.maxBatch} messages per batch`));
    }

    const era = eraOf(payload, batch, request.headers);
    if (era.kind === 'legacy') return answerLegacyRequest(messages, batch, auth, request, reply);
    if (era.kind === 'modern') return serveModern(era.route, request, reply, auth);
    return reply.code(era.status).send(era.answer);
  });

  /** A 2025-era HTTP request: its messages one at a time, in order, so a batch meters its messages in the order they were sent. */
  async function answerLegacyRequest(messages: unknown[], batch: boolean, auth: AuthResult, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const answers: Answer[] = [];
    let refusal: ApiError | null = null;
    for (const message of messages) {
      const pending = admitted(auth, message, reply);
      const gate = pending instanceof Promise ? await pending : pending;
      // Metering needs the database or Redis: without it nothing is answered.
      if (!gate.ok && gate.error.status === 503) return refuse(reply, gate.error);
      if (gate.ok) {
        const handled = await answerLegacy(message, { auth, account: gate.account, request, arguments: argumentsOf(message), message });
        answers.push(handled.answer);
        refusal ??= handled.refusal;
      } else {
        answers.push(answerRefused(message, gate.error));
        refusal ??= gate.error;
      }
    }
    const replies = answers.filter((a): a is string | Buffer => a !== null);
    if (replies.length === 0) return reply.code(202).send();
    // A single refused message is an HTTP 429 (503 when a dependency is away) with the JSON-RPC
    // error as its body.
    if (!batch && refusal !== null) refusedMessage(reply, refusal);
    return reply.send(bodyOf(replies, batch));
  }

  /**
   * A 2026-07-28 request (one message: the revision has no batches): metered, then served by the
   * SDK's entry, whose answer (status and body) is sent as it is. An unknown tool is answered here,
   * naming the tools, as in the 2025 era.
   */
  async function serveModern(route: InboundModernRoute, request: FastifyRequest, reply: FastifyReply, auth: AuthResult): Promise<FastifyReply> {
    const message = route.message;
    const gate = await admitted(auth, message, reply);
    if (!gate.ok) {
      if (route.messageKind === 'notification') return reply.code(202).send();
      return refusedMessage(reply, gate.error).send(refusalAnswer(route.message.id, gate.error));
    }
    if (route.messageKind === 'request' && message.method === 'tools/call') {
      const name = (message.params as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string' || !TOOL_NAMES.has(name)) return reply.send(errorAnswer(route.message.id, ProtocolErrorCode.InvalidParams, unknownToolMessage(name, TOOL_LIST)));
    }
    const call: McpCall = { auth, account: gate.account, request, arguments: argumentsOf(message), message };
    const answer = await modern.exchange(request.headers, request.body as string, message, call);
    reply.code(answer.status).type(answer.contentType);
    return answer.text === '' ? reply.send() : reply.send(answer.text);
  }
}
