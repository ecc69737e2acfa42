// The input of /ask, declared once: its query parameters (what GET reads, POST's query string fills in) and its
// optional JSON body. The OpenAPI document and the shim's parser both read these.
import { AGENT_RESULTS } from './agent-surfaces.ts';
import { LIMITS } from '../contract/limits.ts';
import { integerParam, textParam, type ParamSpec } from '../contract/listing-query.ts';

/** The three names a question may come under, in the order they are read. */
export const ASK_QUERY_NAMES = ['query', 'q', 'question'] as const;

export const ASK_PARAMS: readonly ParamSpec[] = [
  textParam('query', 'The question or keywords.', { maxLength: LIMITS.ask }),
  textParam('q', 'Alias of query.', { maxLength: LIMITS.ask }),
  textParam('question', 'Alias of query.', { maxLength: LIMITS.ask }),
  textParam('stream', '1: answer as text/event-stream (events start, item, complete).', { values: ['1'] }),
  integerParam('limit', 'Number of results.', { min: 1, max: AGENT_RESULTS.max, default: AGENT_RESULTS.default }),
];

/** The optional POST body, as JSON Schema: the same names, stream as a boolean. */
export const ASK_BODY = {
  json: {
    type: 'object',
    properties: {
      ...Object.fromEntries(ASK_QUERY_NAMES.map((name) => [name, { type: 'string', maxLength: LIMITS.ask }])),
      stream: { type: 'boolean' },
      limit: { type: 'integer', minimum: 1, maximum: AGENT_RESULTS.max, default: AGENT_RESULTS.default },
    },
  },
} as const;
