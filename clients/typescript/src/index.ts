/**
 * `@wingman/client`: a typed client of Wingman's HTTP API for Node (18 and later) and browsers.
 */

export {
  Wingman,
  newIdempotencyKey,
  type Agent,
  type ApprovalDecision,
  type Fleet,
  type FleetRun,
  type FleetRunAccepted,
  type FleetTask,
  type MessageAccepted,
  type MessageBody,
  type NewAgent,
  type NewFleet,
  type NewSession,
  type Run,
  type RunFleetBody,
  type Session,
  type SubmitOptions,
  type WaitOptions,
  type WingmanOptions,
} from "./client.js";
export {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServerError,
  TooManyRequestsError,
  UnauthorizedError,
  UnprocessableEntityError,
  WaitTimeoutError,
  WingmanError,
  errorForStatus,
} from "./errors.js";
export { EventStreamError, type TailOptions } from "./sse.js";
export type * from "./events.js";
export type { components, operations, paths } from "./schema.js";
