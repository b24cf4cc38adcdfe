/**
 * An HTTP/1.1 client over a bare TCP socket that sends a request the way browsers, Node's `fetch`
 * and Python's `requests` do: headers and the whole body without `Expect: 100-continue`, whatever the
 * server answers meanwhile. Run as a worker (`new Worker(thisFile)`), it sends on a thread of its own,
 * so its writes race the server's reads as a client in another process does, not in turns with
 * them on one event loop. It imports nothing of ours, so Node runs it as it is.
 */
import { connect } from "node:net";
import { isMainThread, parentPort } from "node:worker_threads";

/** The size of each write, as curl's upload buffer: each is written once the last was taken. */
const PIECE = 64 * 1024;

export interface RawRequest {
  port: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Sent with `Transfer-Encoding: chunked` instead of a `Content-Length`. */
  chunked?: boolean;
  /** Only this many bytes of the body are sent, then nothing more; the connection stays open. */
  stallAfter?: number;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawOutcome {
  /** The whole answer, when the client read one. */
  answer?: RawAnswer;
  /** The socket's error (a reset, a broken pipe), if it had one. */
  error?: string;
  /** Whether every byte of the request was written before the connection ended. */
  sent: boolean;
}

/** The first whole answer in `data`, its body framed by `Content-Length`, if it has all arrived. */
function parseAnswer(data: Buffer): RawAnswer | undefined {
  const end = data.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const [statusLine = "", ...lines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  if (data.length < end + 4 + length) return undefined;
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: data.subarray(end + 4, end + 4 + length).toString("utf8"),
  };
}

function requestBytes(request: RawRequest): Buffer {
  const framing: Record<string, string> = request.chunked
    ? { "transfer-encoding": "chunked" }
    : { "content-length": String(request.body.length) };
  const head = [
    `${request.method} ${request.path} HTTP/1.1`,
    "host: 127.0.0.1",
    ...Object.entries({ ...request.headers, ...framing }).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  const body = request.chunked
    ? Buffer.concat([
        Buffer.from(`${request.body.length.toString(16)}\r\n`),
        request.body,
        Buffer.from("\r\n0\r\n\r\n"),
      ])
    : Buffer.from(request.body);
  const whole = Buffer.concat([Buffer.from(head), body]);
  return request.stallAfter === undefined ? whole : whole.subarray(0, head.length + request.stallAfter);
}

/**
 * Sends one request on a fresh connection. Once it has written everything and read a whole answer
 * it ends its side; it settles when the connection closes, however it closes.
 */
export function exchange(request: RawRequest): Promise<RawOutcome> {
  const payload = requestBytes(request);
  return new Promise((resolve) => {
    const outcome: RawOutcome = { sent: false };
    let received = Buffer.alloc(0);
    const socket = connect({ port: request.port, host: "127.0.0.1" });
    const endWhenDone = () => {
      if (outcome.sent && outcome.answer) socket.end();
    };
    const send = (offset: number) => {
      if (offset >= payload.length) {
        outcome.sent = true;
        endWhenDone();
        return;
      }
      socket.write(payload.subarray(offset, offset + PIECE), (error) => {
        if (!error) send(offset + PIECE);
      });
    };
    socket.on("connect", () => send(0));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (outcome.answer) return;
      outcome.answer = parseAnswer(received);
      endWhenDone();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      outcome.error ??= error.code ?? error.message;
    });
    socket.on("close", () => resolve(outcome));
  });
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on("message", (request: RawRequest) => {
    exchange(request).then((outcome) => port.postMessage(outcome));
  });
}
