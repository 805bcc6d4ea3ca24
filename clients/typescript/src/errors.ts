/**
 * Errors thrown by the client. Every answer of the server with a status of 400 or more becomes a
 * `WingmanError` (or the subclass for its status) whose `message` is the server's own `error`
 * text, so a caller can both branch on the kind (`instanceof NotFoundError`) and show the reason.
 */

/** An error answer of the server: `status` is the HTTP status, `message` the server's text. */
export class WingmanError extends Error {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The parsed JSON body of the answer, when it was JSON. */
  readonly body: unknown;
  /** The answer's headers (e.g. `Retry-After`, `WWW-Authenticate`). */
  readonly headers: Headers;

  constructor(status: number, message: string, body?: unknown, headers?: Headers) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.body = body;
    this.headers = headers ?? new Headers();
  }

  /**
   * Seconds the server asked to wait before trying again (`Retry-After`), when it said so in
   * seconds; a date in that header is rare and read as no hint.
   */
  get retryAfterSeconds(): number | undefined {
    const value = this.headers.get("retry-after");
    if (value === null || value.trim() === "") return undefined;
    const seconds = Number(value);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  }
}

/** 400: a malformed request or a refused value. */
export class BadRequestError extends WingmanError {}
/** 401: no API key, or one the server does not know. */
export class UnauthorizedError extends WingmanError {}
/** 403: a host or origin the server refuses, or a key whose role may not do this. */
export class ForbiddenError extends WingmanError {}
/** 404: an unknown (or deleted) resource or route. */
export class NotFoundError extends WingmanError {}
/** 409: a state transition that is not allowed now (cancelling a finished run, say). */
export class ConflictError extends WingmanError {}
/** 422: JSON that does not fit the request's shape, or an `Idempotency-Key` reused with another body. */
export class UnprocessableEntityError extends WingmanError {}
/** 429: a quota or rate limit; retry later. */
export class TooManyRequestsError extends WingmanError {}
/** 5xx: a failure of the server or its database (503 is transient, 507 means the disk is full). */
export class ServerError extends WingmanError {}

/**
 * A wait that ran out of time (`waitFor` with `timeoutMs`). It is not an answer of the server,
 * so it is no `WingmanError`.
 */
export class WaitTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WaitTimeoutError";
  }
}

/** Builds the error for a status, picking the subclass that names it. */
export function errorForStatus(status: number, message: string, body?: unknown, headers?: Headers): WingmanError {
  switch (status) {
    case 400:
      return new BadRequestError(status, message, body, headers);
    case 401:
      return new UnauthorizedError(status, message, body, headers);
    case 403:
      return new ForbiddenError(status, message, body, headers);
    case 404:
      return new NotFoundError(status, message, body, headers);
    case 409:
      return new ConflictError(status, message, body, headers);
    case 422:
      return new UnprocessableEntityError(status, message, body, headers);
    case 429:
      return new TooManyRequestsError(status, message, body, headers);
    default:
      return status >= 500
        ? new ServerError(status, message, body, headers)
        : new WingmanError(status, message, body, headers);
  }
}

/**
 * Reads an error answer into a `WingmanError`. The server always answers `{"error": "…"}`; a
 * proxy in between may not, so any other body is kept as the message, and an empty one falls back
 * to the status line.
 */
export async function errorFromResponse(response: Response): Promise<WingmanError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // A body that breaks off still leaves the status, which is what the error is typed by.
  }
  let body: unknown = text;
  let message = text.trim();
  try {
    body = JSON.parse(text);
    if (body !== null && typeof body === "object" && typeof (body as { error?: unknown }).error === "string") {
      message = (body as { error: string }).error;
    }
  } catch {
    // Not JSON: the text itself is the best message there is.
  }
  if (message === "") message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
  return errorForStatus(response.status, message, body, response.headers);
}

/**
 * Whether a failed submission may be sent again with the same `Idempotency-Key`: a network
 * failure (no answer, so the request may or may not have been written), a 5xx other than 507
 * (the server's failures are transient, a full disk is not until an operator acts), and 429.
 * Errors of the caller's making (4xx) are never retried: the same request would fail the same way.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof WingmanError) {
    return error.status === 429 || (error.status >= 500 && error.status !== 507);
  }
  return !isAbortError(error) && !(error instanceof WaitTimeoutError);
}

/** Whether an error is the caller's own abort (an `AbortSignal`), which must end everything at once. */
export function isAbortError(error: unknown): boolean {
  return (
    error !== null &&
    typeof error === "object" &&
    ((error as { name?: unknown }).name === "AbortError" || (error as { name?: unknown }).name === "TimeoutError")
  );
}
