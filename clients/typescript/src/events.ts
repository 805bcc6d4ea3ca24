/**
 * Typed events of a run's and a fleet run's log (docs/api.md, "Events").
 *
 * The OpenAPI document describes an event only by its common fields (`seq`, `type`, `at`, the
 * log's ID), because the fields of each type are open-ended; these types name the fields of the
 * common types so that `switch (event.type)` narrows to them. Every event keeps the rest of its
 * JSON, so fields a newer server adds are there to read.
 */

/** Fields every event of a run's log carries. */
export interface RunEventBase {
  /** 1, 2, 3, … within the run's log, dense: no number is skipped. */
  seq: number;
  /** The event's type. */
  type: string;
  /** When it was written (RFC 3339, UTC). */
  at: string;
  /** The run whose log it is. */
  run_id: string;
  /** The fields of its type, and any a newer server adds. */
  [field: string]: unknown;
}

/** Token counts of a step or a run. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  [field: string]: unknown;
}

/** A call the run waits on, as `approval_requested` and `tool_calls_requested` list it. */
export interface RequestedCall {
  call_id: string;
  name: string;
  input: unknown;
  /** `repeated_call` when the loop guard asked about it. */
  reason?: string;
  [field: string]: unknown;
}

export interface RunQueuedEvent extends RunEventBase {
  type: "run_queued";
  kind: string;
  session_id: string | null;
  agent_id: string;
}
export interface RunStartedEvent extends RunEventBase {
  type: "run_started";
  attempt: number;
  worker_id: string;
  charged_attempts?: number;
}
export interface RunHandedBackEvent extends RunEventBase {
  type: "run_handed_back";
  interrupted: boolean;
  reason: string;
}
export interface RunResumedEvent extends RunEventBase {
  type: "run_resumed";
  attempt: number;
  from_step: number;
}
export interface StepStartedEvent extends RunEventBase {
  type: "step_started";
  step: number;
}
export interface TextDeltaEvent extends RunEventBase {
  type: "text_delta";
  step: number;
  text: string;
}
export interface ThinkingDeltaEvent extends RunEventBase {
  type: "thinking_delta";
  step: number;
  text: string;
}
export interface ToolCallEvent extends RunEventBase {
  type: "tool_call";
  step: number;
  call_id: string;
  name: string;
  input: unknown;
}
export interface ToolResultEvent extends RunEventBase {
  type: "tool_result";
  step: number;
  call_id: string;
  name?: string;
  output: string;
  is_error: boolean;
}
export interface StepCompletedEvent extends RunEventBase {
  type: "step_completed";
  step: number;
  usage: Usage;
  stop_reason: string | null;
}
/** The step starts over: the text of that step shown so far is void. */
export interface StepRestartedEvent extends RunEventBase {
  type: "step_restarted";
  step: number;
  attempt: number;
  reason?: string;
}
export interface ApprovalRequestedEvent extends RunEventBase {
  type: "approval_requested";
  step: number;
  calls: RequestedCall[];
}
export interface ApprovalDecidedEvent extends RunEventBase {
  type: "approval_decided";
  step: number;
  decisions: Array<{ call_id: string; decision: string; [field: string]: unknown }>;
}
export interface ToolCallsRequestedEvent extends RunEventBase {
  type: "tool_calls_requested";
  step: number;
  calls: RequestedCall[];
}
export interface ToolResultsReceivedEvent extends RunEventBase {
  type: "tool_results_received";
  step: number;
  call_ids: string[];
}
export interface SteeredEvent extends RunEventBase {
  type: "steered";
  message: string;
  skipped: string[];
}
/** The run ended; always the last event of its log. */
export interface RunDoneEvent extends RunEventBase {
  type: "done";
  status: "succeeded" | "failed" | "cancelled" | "interrupted";
  response: string | null;
  usage: Usage;
  steps: number;
  error?: string | null;
}

export interface StepReusedEvent extends RunEventBase {
  type: "step_reused";
  step: number;
  from_run_id: string;
  usage: Usage;
  tool_calls: Array<{ call_id: string; name: string; is_error: boolean }>;
}
export interface SubagentStartedEvent extends RunEventBase {
  type: "subagent_started";
  step: number;
  call_id: string;
  child_run_id: string;
  agent_id: string;
}
export interface SubagentFinishedEvent extends RunEventBase {
  type: "subagent_finished";
  step: number;
  call_id: string;
  child_run_id: string;
  status: string;
}
export interface ToolSourceUnavailableEvent extends RunEventBase {
  type: "tool_source_unavailable";
  step: number;
  server: string;
  error: string;
}
export interface StepOutputExceededEvent extends RunEventBase {
  type: "step_output_exceeded";
  step: number;
  bytes: number;
  limit: number;
}
export interface RateLimitedEvent extends RunEventBase {
  type: "rate_limited";
  step: number;
  budget: string;
  reason: string;
  until: string;
  wait_ms: number;
}
export interface BudgetExhaustedEvent extends RunEventBase {
  type: "budget_exhausted";
  step: number;
}
export interface LoopDetectedEvent extends RunEventBase {
  type: "loop_detected";
  step: number;
  name: string;
  repeats: number;
}
export interface CompactionStartedEvent extends RunEventBase {
  type: "compaction_started";
  step: number;
  tokens_before: number;
  reason: string;
}
export interface CompactionCompletedEvent extends RunEventBase {
  type: "compaction_completed";
  step: number;
  tokens_before: number;
  tokens_after: number;
}

/**
 * An event of a run's log: a union discriminated by `type`, so `switch (event.type)` narrows to
 * the fields of each. A server newer than this client may write types not listed here; they are
 * yielded all the same, with every field, and match no `case` (the `default` branch sees them).
 */
export type RunEvent =
  | RunQueuedEvent
  | RunStartedEvent
  | RunHandedBackEvent
  | RunResumedEvent
  | StepStartedEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | StepCompletedEvent
  | StepReusedEvent
  | StepRestartedEvent
  | ApprovalRequestedEvent
  | ApprovalDecidedEvent
  | ToolCallsRequestedEvent
  | ToolResultsReceivedEvent
  | SubagentStartedEvent
  | SubagentFinishedEvent
  | ToolSourceUnavailableEvent
  | SteeredEvent
  | StepOutputExceededEvent
  | RateLimitedEvent
  | BudgetExhaustedEvent
  | LoopDetectedEvent
  | CompactionStartedEvent
  | CompactionCompletedEvent
  | RunDoneEvent;

/** Fields every event of a fleet run's log carries (`run_id`, in a `result`, is its task's run). */
export interface FleetRunEventBase {
  seq: number;
  type: string;
  at: string;
  fleet_run_id: string;
  [field: string]: unknown;
}
export interface FleetQueuedEvent extends FleetRunEventBase {
  type: "fleet_queued";
  fleet_id: string;
  agent_id: string;
  tasks: number;
  worker_count: number;
}
/** One per finished task: the task's result. */
export interface FleetResultEvent extends FleetRunEventBase {
  type: "result";
  task_index: number;
  run_id: string;
  session_id?: string;
  status: string;
  response: string | null;
  steps?: number;
  data?: unknown;
  error?: string | null;
}
/** The fleet run ended; always the last event of its log. */
export interface FleetDoneEvent extends FleetRunEventBase {
  type: "done";
  status: "succeeded" | "failed" | "cancelled";
  tasks: number;
  succeeded: number;
  failed: number;
  cancelled: number;
}
/** An event of a fleet run's log, discriminated by `type` like `RunEvent`. */
export type FleetRunEvent = FleetQueuedEvent | FleetResultEvent | FleetDoneEvent;
