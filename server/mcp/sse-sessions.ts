// The SSE handshake of GET /.well-known/mcp/sse (the HTTP+SSE transport of MCP 2024-11-05): each open stream is a
// session whose `endpoint` event names where to POST; answers to those POSTs travel back on the stream. Sessions
// live in this process only and end with their stream; everything else about the server stays stateless.
import { randomUUID } from 'node:crypto';
import type { EventStream } from '../http/prepared.ts';

export const SSE_MAX_SESSIONS = 1_000;

export class SseSessions {
  private readonly streams = new Map<string, EventStream>();
  private readonly max: number;

  constructor(max: number = SSE_MAX_SESSIONS) {
    this.max = max;
  }

  get full(): boolean {
    return this.streams.size >= this.max;
  }

  get size(): number {
    return this.streams.size;
  }

  /** Registers an open stream; the session ends when the stream closes. */
  open(stream: EventStream): string {
    const id = randomUUID();
    this.streams.set(id, stream);
    stream.onClose(() => this.streams.delete(id));
    return id;
  }

  has(id: string): boolean {
    const stream = this.streams.get(id);
    return stream !== undefined && !stream.closed;
  }

  /** Sends one JSON-RPC message as a `message` event; false when the session is gone. */
  deliver(id: string, message: string): boolean {
    const stream = this.streams.get(id);
    if (!stream || stream.closed) return false;
    stream.send('message', message);
    return true;
  }
}
