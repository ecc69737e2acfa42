// One error vocabulary for every transport: HTTP maps it to status + {code, message, resolution},
// JSON-RPC and SSE map the same codes in their own modules.
export const ERROR_CODES = {
  invalid_parameter: { status: 400, resolution: 'Fix the named parameter; the limits are listed in /openapi.json.' },
  invalid_body: { status: 400, resolution: 'Send a JSON body of the documented shape with Content-Type: application/json.' },
  unsupported_api_version: { status: 400, resolution: 'Send API-Version: 1 or omit the header; 1 is the only version.' },
  authorization_server_not_offered: {
    status: 400,
    resolution: 'The public catalog needs no credential; call it without Authorization. Staff sign in at /login.',
  },
  unauthorized: {
    status: 401,
    resolution: 'Staff routes need a staff Bearer JWT. Public catalog routes need no credential.',
  },
  not_found: { status: 404, resolution: 'Check the id or path; search with GET /api/v1/listings?q=...' },
  gone: { status: 410, resolution: 'The listing left the catalog; search for an alternative with GET /api/v1/listings?q=...' },
  method_not_allowed: { status: 405, resolution: 'Use one of the methods listed in the Allow header.' },
  request_timeout: { status: 408, resolution: 'Send the whole request promptly; the time limits are in the README (HTTP_*_TIMEOUT_MS).' },
  idempotency_key_in_flight: {
    status: 409,
    resolution: 'A request with this Idempotency-Key is still running; retry after it completes.',
  },
  payload_too_large: { status: 413, resolution: 'Send a smaller body.' },
  unsupported_media_type: { status: 415, resolution: 'Send the body as application/json.' },
  idempotency_key_reused: {
    status: 422,
    resolution: 'Use a new Idempotency-Key for a different request body.',
  },
  rate_limited: { status: 429, resolution: 'Wait for the number of seconds in Retry-After, then retry.' },
  internal_error: { status: 500, resolution: 'Retry later; if it persists, report it with the time of the request.' },
  service_unavailable: { status: 503, resolution: 'The catalog is starting or rebuilding; retry in a few seconds.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The one throwable of the domain; transports turn it into their own error shape. */
export class CatalogError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly resolution: string;
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, options: { resolution?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'CatalogError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.resolution = options.resolution ?? ERROR_CODES[code].resolution;
    this.headers = options.headers ?? {};
  }
  toBody(): { code: string; message: string; resolution: string } {
    return { code: this.code, message: this.message, resolution: this.resolution };
  }
}

export function invalidParameter(name: string, rule: string): CatalogError {
  return new CatalogError('invalid_parameter', `Parameter '${name}' ${rule}.`);
}
