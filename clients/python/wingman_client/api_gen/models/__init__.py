"""Contains all the data models used in inputs/outputs"""

from __future__ import annotations

from .agent import Agent
from .agent_fields import AgentFields
from .agent_fields_provider_type_1 import AgentFieldsProviderType1
from .agent_fields_provider_type_2_type_1 import AgentFieldsProviderType2Type1
from .agent_fields_provider_type_3_type_1 import AgentFieldsProviderType3Type1
from .agent_fields_reasoning_type_1 import AgentFieldsReasoningType1
from .agent_fields_reasoning_type_2_type_1 import AgentFieldsReasoningType2Type1
from .agent_fields_reasoning_type_3_type_1 import AgentFieldsReasoningType3Type1
from .agent_fields_tools_type_0_item import AgentFieldsToolsType0Item
from .agent_options import AgentOptions
from .api_key_info import ApiKeyInfo
from .approval import Approval
from .approve_body import ApproveBody
from .approve_body_decisions_item import ApproveBodyDecisionsItem
from .approve_body_decisions_item_decision import ApproveBodyDecisionsItemDecision
from .approve_run_response_400 import ApproveRunResponse400
from .approve_run_response_401 import ApproveRunResponse401
from .approve_run_response_403 import ApproveRunResponse403
from .approve_run_response_413 import ApproveRunResponse413
from .approve_run_response_415 import ApproveRunResponse415
from .approve_run_response_503 import ApproveRunResponse503
from .attempt import Attempt
from .audit_entry import AuditEntry
from .audit_page import AuditPage
from .blocking_tool_call import BlockingToolCall
from .branch import Branch
from .budget_view import BudgetView
from .by import By
from .cancel_fleet_run_response_400 import CancelFleetRunResponse400
from .cancel_fleet_run_response_401 import CancelFleetRunResponse401
from .cancel_fleet_run_response_403 import CancelFleetRunResponse403
from .cancel_fleet_run_response_503 import CancelFleetRunResponse503
from .cancel_formation_run_response_400 import CancelFormationRunResponse400
from .cancel_formation_run_response_401 import CancelFormationRunResponse401
from .cancel_formation_run_response_403 import CancelFormationRunResponse403
from .cancel_formation_run_response_503 import CancelFormationRunResponse503
from .cancel_run_response_400 import CancelRunResponse400
from .cancel_run_response_401 import CancelRunResponse401
from .cancel_run_response_403 import CancelRunResponse403
from .cancel_run_response_503 import CancelRunResponse503
from .carried import Carried
from .child_run import ChildRun
from .client_result import ClientResult
from .client_tool import ClientTool
from .client_tool_input_schema import ClientToolInputSchema
from .compact_body import CompactBody
from .compact_session_response_401 import CompactSessionResponse401
from .compact_session_response_403 import CompactSessionResponse403
from .compact_session_response_413 import CompactSessionResponse413
from .compact_session_response_415 import CompactSessionResponse415
from .compact_session_response_503 import CompactSessionResponse503
from .compaction_settings import CompactionSettings
from .concurrency import Concurrency
from .content_type_0 import ContentType0
from .content_type_0_type import ContentType0Type
from .content_type_1 import ContentType1
from .content_type_1_type import ContentType1Type
from .content_type_2 import ContentType2
from .content_type_2_type import ContentType2Type
from .content_type_3 import ContentType3
from .content_type_3_type import ContentType3Type
from .content_type_4 import ContentType4
from .content_type_4_type import ContentType4Type
from .content_type_5 import ContentType5
from .content_type_5_type import ContentType5Type
from .create_agent_response_401 import CreateAgentResponse401
from .create_agent_response_403 import CreateAgentResponse403
from .create_agent_response_413 import CreateAgentResponse413
from .create_agent_response_415 import CreateAgentResponse415
from .create_agent_response_503 import CreateAgentResponse503
from .create_fleet_response_401 import CreateFleetResponse401
from .create_fleet_response_403 import CreateFleetResponse403
from .create_fleet_response_413 import CreateFleetResponse413
from .create_fleet_response_415 import CreateFleetResponse415
from .create_fleet_response_503 import CreateFleetResponse503
from .create_formation_response_401 import CreateFormationResponse401
from .create_formation_response_403 import CreateFormationResponse403
from .create_formation_response_413 import CreateFormationResponse413
from .create_formation_response_415 import CreateFormationResponse415
from .create_formation_response_503 import CreateFormationResponse503
from .create_key_response_401 import CreateKeyResponse401
from .create_key_response_403 import CreateKeyResponse403
from .create_key_response_413 import CreateKeyResponse413
from .create_key_response_415 import CreateKeyResponse415
from .create_key_response_503 import CreateKeyResponse503
from .create_schedule_response_401 import CreateScheduleResponse401
from .create_schedule_response_403 import CreateScheduleResponse403
from .create_schedule_response_413 import CreateScheduleResponse413
from .create_schedule_response_415 import CreateScheduleResponse415
from .create_schedule_response_503 import CreateScheduleResponse503
from .create_session_response_401 import CreateSessionResponse401
from .create_session_response_403 import CreateSessionResponse403
from .create_session_response_413 import CreateSessionResponse413
from .create_session_response_415 import CreateSessionResponse415
from .create_session_response_503 import CreateSessionResponse503
from .created_key import CreatedKey
from .credential_list import CredentialList
from .credential_list_providers import CredentialListProviders
from .credential_view import CredentialView
from .day_usage import DayUsage
from .delete_agent_response_400 import DeleteAgentResponse400
from .delete_agent_response_401 import DeleteAgentResponse401
from .delete_agent_response_403 import DeleteAgentResponse403
from .delete_agent_response_503 import DeleteAgentResponse503
from .delete_credential_response_401 import DeleteCredentialResponse401
from .delete_credential_response_403 import DeleteCredentialResponse403
from .delete_credential_response_503 import DeleteCredentialResponse503
from .delete_fleet_response_400 import DeleteFleetResponse400
from .delete_fleet_response_401 import DeleteFleetResponse401
from .delete_fleet_response_403 import DeleteFleetResponse403
from .delete_fleet_response_503 import DeleteFleetResponse503
from .delete_formation_response_400 import DeleteFormationResponse400
from .delete_formation_response_401 import DeleteFormationResponse401
from .delete_formation_response_403 import DeleteFormationResponse403
from .delete_formation_response_503 import DeleteFormationResponse503
from .delete_provider_limits_response_401 import DeleteProviderLimitsResponse401
from .delete_provider_limits_response_403 import DeleteProviderLimitsResponse403
from .delete_provider_limits_response_503 import DeleteProviderLimitsResponse503
from .delete_run_response_400 import DeleteRunResponse400
from .delete_run_response_401 import DeleteRunResponse401
from .delete_run_response_403 import DeleteRunResponse403
from .delete_run_response_503 import DeleteRunResponse503
from .delete_schedule_response_400 import DeleteScheduleResponse400
from .delete_schedule_response_401 import DeleteScheduleResponse401
from .delete_schedule_response_403 import DeleteScheduleResponse403
from .delete_schedule_response_503 import DeleteScheduleResponse503
from .delete_secret_response_401 import DeleteSecretResponse401
from .delete_secret_response_403 import DeleteSecretResponse403
from .delete_secret_response_503 import DeleteSecretResponse503
from .delete_session_response_400 import DeleteSessionResponse400
from .delete_session_response_401 import DeleteSessionResponse401
from .delete_session_response_403 import DeleteSessionResponse403
from .delete_session_response_503 import DeleteSessionResponse503
from .deleted import Deleted
from .deliveries import Deliveries
from .delivery import Delivery
from .delivery_status import DeliveryStatus
from .edge import Edge
from .error_body import ErrorBody
from .event import Event
from .event_frame import EventFrame
from .fleet import Fleet
from .fleet_fields import FleetFields
from .fleet_progress import FleetProgress
from .fleet_run import FleetRun
from .fleet_run_accepted import FleetRunAccepted
from .fleet_run_events_response_401 import FleetRunEventsResponse401
from .fleet_run_events_response_403 import FleetRunEventsResponse403
from .fleet_run_events_response_503 import FleetRunEventsResponse503
from .fleet_run_page import FleetRunPage
from .fleet_run_status import FleetRunStatus
from .fleet_run_view import FleetRunView
from .fleet_status import FleetStatus
from .fork_body import ForkBody
from .fork_session_response_401 import ForkSessionResponse401
from .fork_session_response_403 import ForkSessionResponse403
from .fork_session_response_413 import ForkSessionResponse413
from .fork_session_response_415 import ForkSessionResponse415
from .fork_session_response_503 import ForkSessionResponse503
from .forked_from import ForkedFrom
from .formation import Formation
from .formation_run import FormationRun
from .formation_run_accepted import FormationRunAccepted
from .formation_run_body import FormationRunBody
from .formation_run_events_response_401 import FormationRunEventsResponse401
from .formation_run_events_response_403 import FormationRunEventsResponse403
from .formation_run_events_response_503 import FormationRunEventsResponse503
from .formation_run_page import FormationRunPage
from .formation_run_result import FormationRunResult
from .formation_run_result_outputs import FormationRunResultOutputs
from .get_agent_response_400 import GetAgentResponse400
from .get_agent_response_401 import GetAgentResponse401
from .get_agent_response_403 import GetAgentResponse403
from .get_agent_response_503 import GetAgentResponse503
from .get_fleet_response_400 import GetFleetResponse400
from .get_fleet_response_401 import GetFleetResponse401
from .get_fleet_response_403 import GetFleetResponse403
from .get_fleet_response_503 import GetFleetResponse503
from .get_fleet_run_response_401 import GetFleetRunResponse401
from .get_fleet_run_response_403 import GetFleetRunResponse403
from .get_fleet_run_response_503 import GetFleetRunResponse503
from .get_formation_response_400 import GetFormationResponse400
from .get_formation_response_401 import GetFormationResponse401
from .get_formation_response_403 import GetFormationResponse403
from .get_formation_response_503 import GetFormationResponse503
from .get_formation_run_response_400 import GetFormationRunResponse400
from .get_formation_run_response_401 import GetFormationRunResponse401
from .get_formation_run_response_403 import GetFormationRunResponse403
from .get_formation_run_response_503 import GetFormationRunResponse503
from .get_model_response_400 import GetModelResponse400
from .get_model_response_401 import GetModelResponse401
from .get_model_response_403 import GetModelResponse403
from .get_model_response_503 import GetModelResponse503
from .get_owner_response_401 import GetOwnerResponse401
from .get_owner_response_403 import GetOwnerResponse403
from .get_owner_response_503 import GetOwnerResponse503
from .get_owner_usage_response_401 import GetOwnerUsageResponse401
from .get_owner_usage_response_403 import GetOwnerUsageResponse403
from .get_owner_usage_response_503 import GetOwnerUsageResponse503
from .get_provider_response_400 import GetProviderResponse400
from .get_provider_response_401 import GetProviderResponse401
from .get_provider_response_403 import GetProviderResponse403
from .get_provider_response_503 import GetProviderResponse503
from .get_run_response_400 import GetRunResponse400
from .get_run_response_401 import GetRunResponse401
from .get_run_response_403 import GetRunResponse403
from .get_run_response_503 import GetRunResponse503
from .get_schedule_response_400 import GetScheduleResponse400
from .get_schedule_response_401 import GetScheduleResponse401
from .get_schedule_response_403 import GetScheduleResponse403
from .get_schedule_response_503 import GetScheduleResponse503
from .get_session_response_401 import GetSessionResponse401
from .get_session_response_403 import GetSessionResponse403
from .get_session_response_503 import GetSessionResponse503
from .guards import Guards
from .health import Health
from .health_response_403 import HealthResponse403
from .health_services import HealthServices
from .history_message import HistoryMessage
from .history_role import HistoryRole
from .http_tool import HttpTool
from .http_tool_headers import HttpToolHeaders
from .http_tool_input_schema import HttpToolInputSchema
from .json_object import JsonObject
from .key_count import KeyCount
from .limit import Limit
from .list_agent_tools_response_401 import ListAgentToolsResponse401
from .list_agent_tools_response_403 import ListAgentToolsResponse403
from .list_agent_tools_response_503 import ListAgentToolsResponse503
from .list_agents_response_401 import ListAgentsResponse401
from .list_agents_response_403 import ListAgentsResponse403
from .list_agents_response_503 import ListAgentsResponse503
from .list_audit_response_401 import ListAuditResponse401
from .list_audit_response_403 import ListAuditResponse403
from .list_audit_response_503 import ListAuditResponse503
from .list_credentials_response_401 import ListCredentialsResponse401
from .list_credentials_response_403 import ListCredentialsResponse403
from .list_credentials_response_503 import ListCredentialsResponse503
from .list_fleet_run_deliveries_response_400 import ListFleetRunDeliveriesResponse400
from .list_fleet_run_deliveries_response_401 import ListFleetRunDeliveriesResponse401
from .list_fleet_run_deliveries_response_403 import ListFleetRunDeliveriesResponse403
from .list_fleet_run_deliveries_response_503 import ListFleetRunDeliveriesResponse503
from .list_fleet_runs_response_401 import ListFleetRunsResponse401
from .list_fleet_runs_response_403 import ListFleetRunsResponse403
from .list_fleet_runs_response_503 import ListFleetRunsResponse503
from .list_fleets_response_401 import ListFleetsResponse401
from .list_fleets_response_403 import ListFleetsResponse403
from .list_fleets_response_503 import ListFleetsResponse503
from .list_formation_run_deliveries_response_400 import (
    ListFormationRunDeliveriesResponse400,
)
from .list_formation_run_deliveries_response_401 import (
    ListFormationRunDeliveriesResponse401,
)
from .list_formation_run_deliveries_response_403 import (
    ListFormationRunDeliveriesResponse403,
)
from .list_formation_run_deliveries_response_503 import (
    ListFormationRunDeliveriesResponse503,
)
from .list_formation_runs_response_401 import ListFormationRunsResponse401
from .list_formation_runs_response_403 import ListFormationRunsResponse403
from .list_formation_runs_response_503 import ListFormationRunsResponse503
from .list_formations_response_401 import ListFormationsResponse401
from .list_formations_response_403 import ListFormationsResponse403
from .list_formations_response_503 import ListFormationsResponse503
from .list_keys_response_401 import ListKeysResponse401
from .list_keys_response_403 import ListKeysResponse403
from .list_keys_response_503 import ListKeysResponse503
from .list_models_response_200 import ListModelsResponse200
from .list_models_response_400 import ListModelsResponse400
from .list_models_response_401 import ListModelsResponse401
from .list_models_response_403 import ListModelsResponse403
from .list_models_response_503 import ListModelsResponse503
from .list_order import ListOrder
from .list_owners_response_401 import ListOwnersResponse401
from .list_owners_response_403 import ListOwnersResponse403
from .list_owners_response_503 import ListOwnersResponse503
from .list_provider_limits_response_401 import ListProviderLimitsResponse401
from .list_provider_limits_response_403 import ListProviderLimitsResponse403
from .list_provider_limits_response_503 import ListProviderLimitsResponse503
from .list_providers_response_401 import ListProvidersResponse401
from .list_providers_response_403 import ListProvidersResponse403
from .list_providers_response_503 import ListProvidersResponse503
from .list_run_deliveries_response_400 import ListRunDeliveriesResponse400
from .list_run_deliveries_response_401 import ListRunDeliveriesResponse401
from .list_run_deliveries_response_403 import ListRunDeliveriesResponse403
from .list_run_deliveries_response_503 import ListRunDeliveriesResponse503
from .list_runs_response_401 import ListRunsResponse401
from .list_runs_response_403 import ListRunsResponse403
from .list_runs_response_503 import ListRunsResponse503
from .list_schedule_runs_response_401 import ListScheduleRunsResponse401
from .list_schedule_runs_response_403 import ListScheduleRunsResponse403
from .list_schedule_runs_response_503 import ListScheduleRunsResponse503
from .list_schedules_response_401 import ListSchedulesResponse401
from .list_schedules_response_403 import ListSchedulesResponse403
from .list_schedules_response_503 import ListSchedulesResponse503
from .list_secrets_response_401 import ListSecretsResponse401
from .list_secrets_response_403 import ListSecretsResponse403
from .list_secrets_response_503 import ListSecretsResponse503
from .list_sessions_response_401 import ListSessionsResponse401
from .list_sessions_response_403 import ListSessionsResponse403
from .list_sessions_response_503 import ListSessionsResponse503
from .list_workers_response_401 import ListWorkersResponse401
from .list_workers_response_403 import ListWorkersResponse403
from .list_workers_response_503 import ListWorkersResponse503
from .marker import Marker
from .mcp_server import McpServer
from .mcp_server_env import McpServerEnv
from .mcp_server_headers import McpServerHeaders
from .message_accepted import MessageAccepted
from .message_body import MessageBody
from .message_body_reasoning_type_1 import MessageBodyReasoningType1
from .message_body_reasoning_type_2_type_1 import MessageBodyReasoningType2Type1
from .message_body_reasoning_type_3_type_1 import MessageBodyReasoningType3Type1
from .message_result import MessageResult
from .message_stream_frame import MessageStreamFrame
from .metrics_response_401 import MetricsResponse401
from .metrics_response_403 import MetricsResponse403
from .metrics_response_503 import MetricsResponse503
from .modalities import Modalities
from .model_info import ModelInfo
from .multitask_strategy import MultitaskStrategy
from .new_agent import NewAgent
from .new_agent_provider_type_1 import NewAgentProviderType1
from .new_agent_provider_type_2_type_1 import NewAgentProviderType2Type1
from .new_agent_provider_type_3_type_1 import NewAgentProviderType3Type1
from .new_agent_reasoning_type_1 import NewAgentReasoningType1
from .new_agent_reasoning_type_2_type_1 import NewAgentReasoningType2Type1
from .new_agent_reasoning_type_3_type_1 import NewAgentReasoningType3Type1
from .new_agent_tools_type_0_item import NewAgentToolsType0Item
from .new_fleet import NewFleet
from .new_formation import NewFormation
from .new_formation_nodes_item_type_0 import NewFormationNodesItemType0
from .new_formation_nodes_item_type_1 import NewFormationNodesItemType1
from .new_formation_nodes_item_type_2 import NewFormationNodesItemType2
from .new_formation_nodes_item_type_2_args import NewFormationNodesItemType2Args
from .new_formation_nodes_item_type_2_function import NewFormationNodesItemType2Function
from .new_formation_nodes_item_type_3 import NewFormationNodesItemType3
from .new_formation_nodes_item_type_3_args import NewFormationNodesItemType3Args
from .new_formation_nodes_item_type_3_function import NewFormationNodesItemType3Function
from .new_formation_nodes_item_type_4 import NewFormationNodesItemType4
from .new_formation_nodes_item_type_4_args import NewFormationNodesItemType4Args
from .new_formation_nodes_item_type_4_function import NewFormationNodesItemType4Function
from .new_formation_nodes_item_type_5 import NewFormationNodesItemType5
from .new_formation_nodes_item_type_5_args import NewFormationNodesItemType5Args
from .new_formation_nodes_item_type_5_function import NewFormationNodesItemType5Function
from .new_key import NewKey
from .new_schedule_request import NewScheduleRequest
from .new_schedule_request_target_type_0 import NewScheduleRequestTargetType0
from .new_schedule_request_target_type_1 import NewScheduleRequestTargetType1
from .new_schedule_request_target_type_2 import NewScheduleRequestTargetType2
from .new_schedule_request_timezone_type_0 import NewScheduleRequestTimezoneType0
from .next_run import NextRun
from .node import Node
from .node_args_type_0 import NodeArgsType0
from .node_ref import NodeRef
from .node_row import NodeRow
from .node_status import NodeStatus
from .offered_tool import OfferedTool
from .offered_tool_input_schema import OfferedToolInputSchema
from .offered_tools import OfferedTools
from .openapi_response_200 import OpenapiResponse200
from .openapi_response_401 import OpenapiResponse401
from .openapi_response_403 import OpenapiResponse403
from .openapi_response_503 import OpenapiResponse503
from .overlap import Overlap
from .owner_view import OwnerView
from .parent_call import ParentCall
from .pause_schedule_response_401 import PauseScheduleResponse401
from .pause_schedule_response_403 import PauseScheduleResponse403
from .pause_schedule_response_503 import PauseScheduleResponse503
from .post_tool_results_response_400 import PostToolResultsResponse400
from .post_tool_results_response_401 import PostToolResultsResponse401
from .post_tool_results_response_403 import PostToolResultsResponse403
from .post_tool_results_response_413 import PostToolResultsResponse413
from .post_tool_results_response_415 import PostToolResultsResponse415
from .post_tool_results_response_503 import PostToolResultsResponse503
from .price import Price
from .priority_count import PriorityCount
from .provider_info import ProviderInfo
from .provider_limits import ProviderLimits
from .provider_view import ProviderView
from .put_body import PutBody
from .put_body_providers import PutBodyProviders
from .put_body_providers_additional_property import PutBodyProvidersAdditionalProperty
from .put_credentials_response_401 import PutCredentialsResponse401
from .put_credentials_response_403 import PutCredentialsResponse403
from .put_credentials_response_413 import PutCredentialsResponse413
from .put_credentials_response_415 import PutCredentialsResponse415
from .put_credentials_response_503 import PutCredentialsResponse503
from .put_owner_response_401 import PutOwnerResponse401
from .put_owner_response_403 import PutOwnerResponse403
from .put_owner_response_413 import PutOwnerResponse413
from .put_owner_response_415 import PutOwnerResponse415
from .put_owner_response_503 import PutOwnerResponse503
from .put_provider_limits_response_401 import PutProviderLimitsResponse401
from .put_provider_limits_response_403 import PutProviderLimitsResponse403
from .put_provider_limits_response_413 import PutProviderLimitsResponse413
from .put_provider_limits_response_415 import PutProviderLimitsResponse415
from .put_provider_limits_response_503 import PutProviderLimitsResponse503
from .put_secret_response_401 import PutSecretResponse401
from .put_secret_response_403 import PutSecretResponse403
from .put_secret_response_413 import PutSecretResponse413
from .put_secret_response_415 import PutSecretResponse415
from .put_secret_response_503 import PutSecretResponse503
from .queue_stats import QueueStats
from .queue_view import QueueView
from .queued_why import QueuedWhy
from .quota import Quota
from .rate_limited import RateLimited
from .reasoning import Reasoning
from .replace_schedule_response_401 import ReplaceScheduleResponse401
from .replace_schedule_response_403 import ReplaceScheduleResponse403
from .replace_schedule_response_413 import ReplaceScheduleResponse413
from .replace_schedule_response_415 import ReplaceScheduleResponse415
from .replace_schedule_response_503 import ReplaceScheduleResponse503
from .results_body import ResultsBody
from .resume_schedule_response_401 import ResumeScheduleResponse401
from .resume_schedule_response_403 import ResumeScheduleResponse403
from .resume_schedule_response_503 import ResumeScheduleResponse503
from .retry_accepted import RetryAccepted
from .retry_body import RetryBody
from .retry_of import RetryOf
from .retry_run_response_401 import RetryRunResponse401
from .retry_run_response_403 import RetryRunResponse403
from .retry_run_response_413 import RetryRunResponse413
from .retry_run_response_415 import RetryRunResponse415
from .retry_run_response_503 import RetryRunResponse503
from .revoke_key_response_400 import RevokeKeyResponse400
from .revoke_key_response_401 import RevokeKeyResponse401
from .revoke_key_response_403 import RevokeKeyResponse403
from .revoke_key_response_503 import RevokeKeyResponse503
from .rewind_body import RewindBody
from .rewind_session_response_400 import RewindSessionResponse400
from .rewind_session_response_401 import RewindSessionResponse401
from .rewind_session_response_403 import RewindSessionResponse403
from .rewind_session_response_413 import RewindSessionResponse413
from .rewind_session_response_415 import RewindSessionResponse415
from .rewind_session_response_503 import RewindSessionResponse503
from .rewound import Rewound
from .role import Role
from .run import Run
from .run_body import RunBody
from .run_events_response_401 import RunEventsResponse401
from .run_events_response_403 import RunEventsResponse403
from .run_events_response_503 import RunEventsResponse503
from .run_fleet_response_401 import RunFleetResponse401
from .run_fleet_response_403 import RunFleetResponse403
from .run_fleet_response_415 import RunFleetResponse415
from .run_fleet_response_503 import RunFleetResponse503
from .run_fleet_stream_response_401 import RunFleetStreamResponse401
from .run_fleet_stream_response_403 import RunFleetStreamResponse403
from .run_fleet_stream_response_415 import RunFleetStreamResponse415
from .run_fleet_stream_response_503 import RunFleetStreamResponse503
from .run_formation_response_401 import RunFormationResponse401
from .run_formation_response_403 import RunFormationResponse403
from .run_formation_response_413 import RunFormationResponse413
from .run_formation_response_415 import RunFormationResponse415
from .run_formation_response_503 import RunFormationResponse503
from .run_input import RunInput
from .run_kind import RunKind
from .run_page import RunPage
from .run_status import RunStatus
from .run_view import RunView
from .sandbox_mode import SandboxMode
from .sandbox_status import SandboxStatus
from .schedule import Schedule
from .schedule_body import ScheduleBody
from .schedule_body_target_type_0 import ScheduleBodyTargetType0
from .schedule_body_target_type_1 import ScheduleBodyTargetType1
from .schedule_body_target_type_2 import ScheduleBodyTargetType2
from .schedule_body_timezone_type_0 import ScheduleBodyTimezoneType0
from .schedule_request import ScheduleRequest
from .secret_body import SecretBody
from .secret_info import SecretInfo
from .send_message_response_401 import SendMessageResponse401
from .send_message_response_403 import SendMessageResponse403
from .send_message_response_413 import SendMessageResponse413
from .send_message_response_415 import SendMessageResponse415
from .send_message_response_503 import SendMessageResponse503
from .send_message_stream_response_401 import SendMessageStreamResponse401
from .send_message_stream_response_403 import SendMessageStreamResponse403
from .send_message_stream_response_413 import SendMessageStreamResponse413
from .send_message_stream_response_415 import SendMessageStreamResponse415
from .send_message_stream_response_503 import SendMessageStreamResponse503
from .server_listing import ServerListing
from .service_state import ServiceState
from .session import Session
from .session_fields import SessionFields
from .session_fields_tools_type_0_item import SessionFieldsToolsType0Item
from .session_metadata import SessionMetadata
from .session_view import SessionView
from .setting_type_1 import SettingType1
from .show_queue_response_401 import ShowQueueResponse401
from .show_queue_response_403 import ShowQueueResponse403
from .show_queue_response_503 import ShowQueueResponse503
from .steer_body import SteerBody
from .steer_run_response_401 import SteerRunResponse401
from .steer_run_response_403 import SteerRunResponse403
from .steer_run_response_413 import SteerRunResponse413
from .steer_run_response_415 import SteerRunResponse415
from .steer_run_response_422 import SteerRunResponse422
from .steer_run_response_503 import SteerRunResponse503
from .stored import Stored
from .subagent import Subagent
from .subject import Subject
from .target_type_0 import TargetType0
from .target_type_1 import TargetType1
from .target_type_2 import TargetType2
from .task_body import TaskBody
from .task_result import TaskResult
from .tick import Tick
from .ticks import Ticks
from .tool_additions import ToolAdditions
from .tool_call_record import ToolCallRecord
from .tool_call_record_input import ToolCallRecordInput
from .unavailable_server import UnavailableServer
from .unhealthy import Unhealthy
from .update_agent_response_401 import UpdateAgentResponse401
from .update_agent_response_403 import UpdateAgentResponse403
from .update_agent_response_413 import UpdateAgentResponse413
from .update_agent_response_415 import UpdateAgentResponse415
from .update_agent_response_503 import UpdateAgentResponse503
from .update_fleet_response_401 import UpdateFleetResponse401
from .update_fleet_response_403 import UpdateFleetResponse403
from .update_fleet_response_413 import UpdateFleetResponse413
from .update_fleet_response_415 import UpdateFleetResponse415
from .update_fleet_response_503 import UpdateFleetResponse503
from .update_session_response_401 import UpdateSessionResponse401
from .update_session_response_403 import UpdateSessionResponse403
from .update_session_response_413 import UpdateSessionResponse413
from .update_session_response_415 import UpdateSessionResponse415
from .update_session_response_503 import UpdateSessionResponse503
from .usage import Usage
from .usage_view import UsageView
from .waiting_call import WaitingCall
from .webhook import Webhook
from .worker_info import WorkerInfo
from .worker_list import WorkerList
from .worker_status import WorkerStatus

__all__ = (
    "Agent",
    "AgentFields",
    "AgentFieldsProviderType1",
    "AgentFieldsProviderType2Type1",
    "AgentFieldsProviderType3Type1",
    "AgentFieldsReasoningType1",
    "AgentFieldsReasoningType2Type1",
    "AgentFieldsReasoningType3Type1",
    "AgentFieldsToolsType0Item",
    "AgentOptions",
    "ApiKeyInfo",
    "Approval",
    "ApproveBody",
    "ApproveBodyDecisionsItem",
    "ApproveBodyDecisionsItemDecision",
    "ApproveRunResponse400",
    "ApproveRunResponse401",
    "ApproveRunResponse403",
    "ApproveRunResponse413",
    "ApproveRunResponse415",
    "ApproveRunResponse503",
    "Attempt",
    "AuditEntry",
    "AuditPage",
    "BlockingToolCall",
    "Branch",
    "BudgetView",
    "By",
    "CancelFleetRunResponse400",
    "CancelFleetRunResponse401",
    "CancelFleetRunResponse403",
    "CancelFleetRunResponse503",
    "CancelFormationRunResponse400",
    "CancelFormationRunResponse401",
    "CancelFormationRunResponse403",
    "CancelFormationRunResponse503",
    "CancelRunResponse400",
    "CancelRunResponse401",
    "CancelRunResponse403",
    "CancelRunResponse503",
    "Carried",
    "ChildRun",
    "ClientResult",
    "ClientTool",
    "ClientToolInputSchema",
    "CompactBody",
    "CompactionSettings",
    "CompactSessionResponse401",
    "CompactSessionResponse403",
    "CompactSessionResponse413",
    "CompactSessionResponse415",
    "CompactSessionResponse503",
    "Concurrency",
    "ContentType0",
    "ContentType0Type",
    "ContentType1",
    "ContentType1Type",
    "ContentType2",
    "ContentType2Type",
    "ContentType3",
    "ContentType3Type",
    "ContentType4",
    "ContentType4Type",
    "ContentType5",
    "ContentType5Type",
    "CreateAgentResponse401",
    "CreateAgentResponse403",
    "CreateAgentResponse413",
    "CreateAgentResponse415",
    "CreateAgentResponse503",
    "CreatedKey",
    "CreateFleetResponse401",
    "CreateFleetResponse403",
    "CreateFleetResponse413",
    "CreateFleetResponse415",
    "CreateFleetResponse503",
    "CreateFormationResponse401",
    "CreateFormationResponse403",
    "CreateFormationResponse413",
    "CreateFormationResponse415",
    "CreateFormationResponse503",
    "CreateKeyResponse401",
    "CreateKeyResponse403",
    "CreateKeyResponse413",
    "CreateKeyResponse415",
    "CreateKeyResponse503",
    "CreateScheduleResponse401",
    "CreateScheduleResponse403",
    "CreateScheduleResponse413",
    "CreateScheduleResponse415",
    "CreateScheduleResponse503",
    "CreateSessionResponse401",
    "CreateSessionResponse403",
    "CreateSessionResponse413",
    "CreateSessionResponse415",
    "CreateSessionResponse503",
    "CredentialList",
    "CredentialListProviders",
    "CredentialView",
    "DayUsage",
    "DeleteAgentResponse400",
    "DeleteAgentResponse401",
    "DeleteAgentResponse403",
    "DeleteAgentResponse503",
    "DeleteCredentialResponse401",
    "DeleteCredentialResponse403",
    "DeleteCredentialResponse503",
    "Deleted",
    "DeleteFleetResponse400",
    "DeleteFleetResponse401",
    "DeleteFleetResponse403",
    "DeleteFleetResponse503",
    "DeleteFormationResponse400",
    "DeleteFormationResponse401",
    "DeleteFormationResponse403",
    "DeleteFormationResponse503",
    "DeleteProviderLimitsResponse401",
    "DeleteProviderLimitsResponse403",
    "DeleteProviderLimitsResponse503",
    "DeleteRunResponse400",
    "DeleteRunResponse401",
    "DeleteRunResponse403",
    "DeleteRunResponse503",
    "DeleteScheduleResponse400",
    "DeleteScheduleResponse401",
    "DeleteScheduleResponse403",
    "DeleteScheduleResponse503",
    "DeleteSecretResponse401",
    "DeleteSecretResponse403",
    "DeleteSecretResponse503",
    "DeleteSessionResponse400",
    "DeleteSessionResponse401",
    "DeleteSessionResponse403",
    "DeleteSessionResponse503",
    "Deliveries",
    "Delivery",
    "DeliveryStatus",
    "Edge",
    "ErrorBody",
    "Event",
    "EventFrame",
    "Fleet",
    "FleetFields",
    "FleetProgress",
    "FleetRun",
    "FleetRunAccepted",
    "FleetRunEventsResponse401",
    "FleetRunEventsResponse403",
    "FleetRunEventsResponse503",
    "FleetRunPage",
    "FleetRunStatus",
    "FleetRunView",
    "FleetStatus",
    "ForkBody",
    "ForkedFrom",
    "ForkSessionResponse401",
    "ForkSessionResponse403",
    "ForkSessionResponse413",
    "ForkSessionResponse415",
    "ForkSessionResponse503",
    "Formation",
    "FormationRun",
    "FormationRunAccepted",
    "FormationRunBody",
    "FormationRunEventsResponse401",
    "FormationRunEventsResponse403",
    "FormationRunEventsResponse503",
    "FormationRunPage",
    "FormationRunResult",
    "FormationRunResultOutputs",
    "GetAgentResponse400",
    "GetAgentResponse401",
    "GetAgentResponse403",
    "GetAgentResponse503",
    "GetFleetResponse400",
    "GetFleetResponse401",
    "GetFleetResponse403",
    "GetFleetResponse503",
    "GetFleetRunResponse401",
    "GetFleetRunResponse403",
    "GetFleetRunResponse503",
    "GetFormationResponse400",
    "GetFormationResponse401",
    "GetFormationResponse403",
    "GetFormationResponse503",
    "GetFormationRunResponse400",
    "GetFormationRunResponse401",
    "GetFormationRunResponse403",
    "GetFormationRunResponse503",
    "GetModelResponse400",
    "GetModelResponse401",
    "GetModelResponse403",
    "GetModelResponse503",
    "GetOwnerResponse401",
    "GetOwnerResponse403",
    "GetOwnerResponse503",
    "GetOwnerUsageResponse401",
    "GetOwnerUsageResponse403",
    "GetOwnerUsageResponse503",
    "GetProviderResponse400",
    "GetProviderResponse401",
    "GetProviderResponse403",
    "GetProviderResponse503",
    "GetRunResponse400",
    "GetRunResponse401",
    "GetRunResponse403",
    "GetRunResponse503",
    "GetScheduleResponse400",
    "GetScheduleResponse401",
    "GetScheduleResponse403",
    "GetScheduleResponse503",
    "GetSessionResponse401",
    "GetSessionResponse403",
    "GetSessionResponse503",
    "Guards",
    "Health",
    "HealthResponse403",
    "HealthServices",
    "HistoryMessage",
    "HistoryRole",
    "HttpTool",
    "HttpToolHeaders",
    "HttpToolInputSchema",
    "JsonObject",
    "KeyCount",
    "Limit",
    "ListAgentsResponse401",
    "ListAgentsResponse403",
    "ListAgentsResponse503",
    "ListAgentToolsResponse401",
    "ListAgentToolsResponse403",
    "ListAgentToolsResponse503",
    "ListAuditResponse401",
    "ListAuditResponse403",
    "ListAuditResponse503",
    "ListCredentialsResponse401",
    "ListCredentialsResponse403",
    "ListCredentialsResponse503",
    "ListFleetRunDeliveriesResponse400",
    "ListFleetRunDeliveriesResponse401",
    "ListFleetRunDeliveriesResponse403",
    "ListFleetRunDeliveriesResponse503",
    "ListFleetRunsResponse401",
    "ListFleetRunsResponse403",
    "ListFleetRunsResponse503",
    "ListFleetsResponse401",
    "ListFleetsResponse403",
    "ListFleetsResponse503",
    "ListFormationRunDeliveriesResponse400",
    "ListFormationRunDeliveriesResponse401",
    "ListFormationRunDeliveriesResponse403",
    "ListFormationRunDeliveriesResponse503",
    "ListFormationRunsResponse401",
    "ListFormationRunsResponse403",
    "ListFormationRunsResponse503",
    "ListFormationsResponse401",
    "ListFormationsResponse403",
    "ListFormationsResponse503",
    "ListKeysResponse401",
    "ListKeysResponse403",
    "ListKeysResponse503",
    "ListModelsResponse200",
    "ListModelsResponse400",
    "ListModelsResponse401",
    "ListModelsResponse403",
    "ListModelsResponse503",
    "ListOrder",
    "ListOwnersResponse401",
    "ListOwnersResponse403",
    "ListOwnersResponse503",
    "ListProviderLimitsResponse401",
    "ListProviderLimitsResponse403",
    "ListProviderLimitsResponse503",
    "ListProvidersResponse401",
    "ListProvidersResponse403",
    "ListProvidersResponse503",
    "ListRunDeliveriesResponse400",
    "ListRunDeliveriesResponse401",
    "ListRunDeliveriesResponse403",
    "ListRunDeliveriesResponse503",
    "ListRunsResponse401",
    "ListRunsResponse403",
    "ListRunsResponse503",
    "ListScheduleRunsResponse401",
    "ListScheduleRunsResponse403",
    "ListScheduleRunsResponse503",
    "ListSchedulesResponse401",
    "ListSchedulesResponse403",
    "ListSchedulesResponse503",
    "ListSecretsResponse401",
    "ListSecretsResponse403",
    "ListSecretsResponse503",
    "ListSessionsResponse401",
    "ListSessionsResponse403",
    "ListSessionsResponse503",
    "ListWorkersResponse401",
    "ListWorkersResponse403",
    "ListWorkersResponse503",
    "Marker",
    "McpServer",
    "McpServerEnv",
    "McpServerHeaders",
    "MessageAccepted",
    "MessageBody",
    "MessageBodyReasoningType1",
    "MessageBodyReasoningType2Type1",
    "MessageBodyReasoningType3Type1",
    "MessageResult",
    "MessageStreamFrame",
    "MetricsResponse401",
    "MetricsResponse403",
    "MetricsResponse503",
    "Modalities",
    "ModelInfo",
    "MultitaskStrategy",
    "NewAgent",
    "NewAgentProviderType1",
    "NewAgentProviderType2Type1",
    "NewAgentProviderType3Type1",
    "NewAgentReasoningType1",
    "NewAgentReasoningType2Type1",
    "NewAgentReasoningType3Type1",
    "NewAgentToolsType0Item",
    "NewFleet",
    "NewFormation",
    "NewFormationNodesItemType0",
    "NewFormationNodesItemType1",
    "NewFormationNodesItemType2",
    "NewFormationNodesItemType2Args",
    "NewFormationNodesItemType2Function",
    "NewFormationNodesItemType3",
    "NewFormationNodesItemType3Args",
    "NewFormationNodesItemType3Function",
    "NewFormationNodesItemType4",
    "NewFormationNodesItemType4Args",
    "NewFormationNodesItemType4Function",
    "NewFormationNodesItemType5",
    "NewFormationNodesItemType5Args",
    "NewFormationNodesItemType5Function",
    "NewKey",
    "NewScheduleRequest",
    "NewScheduleRequestTargetType0",
    "NewScheduleRequestTargetType1",
    "NewScheduleRequestTargetType2",
    "NewScheduleRequestTimezoneType0",
    "NextRun",
    "Node",
    "NodeArgsType0",
    "NodeRef",
    "NodeRow",
    "NodeStatus",
    "OfferedTool",
    "OfferedToolInputSchema",
    "OfferedTools",
    "OpenapiResponse200",
    "OpenapiResponse401",
    "OpenapiResponse403",
    "OpenapiResponse503",
    "Overlap",
    "OwnerView",
    "ParentCall",
    "PauseScheduleResponse401",
    "PauseScheduleResponse403",
    "PauseScheduleResponse503",
    "PostToolResultsResponse400",
    "PostToolResultsResponse401",
    "PostToolResultsResponse403",
    "PostToolResultsResponse413",
    "PostToolResultsResponse415",
    "PostToolResultsResponse503",
    "Price",
    "PriorityCount",
    "ProviderInfo",
    "ProviderLimits",
    "ProviderView",
    "PutBody",
    "PutBodyProviders",
    "PutBodyProvidersAdditionalProperty",
    "PutCredentialsResponse401",
    "PutCredentialsResponse403",
    "PutCredentialsResponse413",
    "PutCredentialsResponse415",
    "PutCredentialsResponse503",
    "PutOwnerResponse401",
    "PutOwnerResponse403",
    "PutOwnerResponse413",
    "PutOwnerResponse415",
    "PutOwnerResponse503",
    "PutProviderLimitsResponse401",
    "PutProviderLimitsResponse403",
    "PutProviderLimitsResponse413",
    "PutProviderLimitsResponse415",
    "PutProviderLimitsResponse503",
    "PutSecretResponse401",
    "PutSecretResponse403",
    "PutSecretResponse413",
    "PutSecretResponse415",
    "PutSecretResponse503",
    "QueuedWhy",
    "QueueStats",
    "QueueView",
    "Quota",
    "RateLimited",
    "Reasoning",
    "ReplaceScheduleResponse401",
    "ReplaceScheduleResponse403",
    "ReplaceScheduleResponse413",
    "ReplaceScheduleResponse415",
    "ReplaceScheduleResponse503",
    "ResultsBody",
    "ResumeScheduleResponse401",
    "ResumeScheduleResponse403",
    "ResumeScheduleResponse503",
    "RetryAccepted",
    "RetryBody",
    "RetryOf",
    "RetryRunResponse401",
    "RetryRunResponse403",
    "RetryRunResponse413",
    "RetryRunResponse415",
    "RetryRunResponse503",
    "RevokeKeyResponse400",
    "RevokeKeyResponse401",
    "RevokeKeyResponse403",
    "RevokeKeyResponse503",
    "RewindBody",
    "RewindSessionResponse400",
    "RewindSessionResponse401",
    "RewindSessionResponse403",
    "RewindSessionResponse413",
    "RewindSessionResponse415",
    "RewindSessionResponse503",
    "Rewound",
    "Role",
    "Run",
    "RunBody",
    "RunEventsResponse401",
    "RunEventsResponse403",
    "RunEventsResponse503",
    "RunFleetResponse401",
    "RunFleetResponse403",
    "RunFleetResponse415",
    "RunFleetResponse503",
    "RunFleetStreamResponse401",
    "RunFleetStreamResponse403",
    "RunFleetStreamResponse415",
    "RunFleetStreamResponse503",
    "RunFormationResponse401",
    "RunFormationResponse403",
    "RunFormationResponse413",
    "RunFormationResponse415",
    "RunFormationResponse503",
    "RunInput",
    "RunKind",
    "RunPage",
    "RunStatus",
    "RunView",
    "SandboxMode",
    "SandboxStatus",
    "Schedule",
    "ScheduleBody",
    "ScheduleBodyTargetType0",
    "ScheduleBodyTargetType1",
    "ScheduleBodyTargetType2",
    "ScheduleBodyTimezoneType0",
    "ScheduleRequest",
    "SecretBody",
    "SecretInfo",
    "SendMessageResponse401",
    "SendMessageResponse403",
    "SendMessageResponse413",
    "SendMessageResponse415",
    "SendMessageResponse503",
    "SendMessageStreamResponse401",
    "SendMessageStreamResponse403",
    "SendMessageStreamResponse413",
    "SendMessageStreamResponse415",
    "SendMessageStreamResponse503",
    "ServerListing",
    "ServiceState",
    "Session",
    "SessionFields",
    "SessionFieldsToolsType0Item",
    "SessionMetadata",
    "SessionView",
    "SettingType1",
    "ShowQueueResponse401",
    "ShowQueueResponse403",
    "ShowQueueResponse503",
    "SteerBody",
    "SteerRunResponse401",
    "SteerRunResponse403",
    "SteerRunResponse413",
    "SteerRunResponse415",
    "SteerRunResponse422",
    "SteerRunResponse503",
    "Stored",
    "Subagent",
    "Subject",
    "TargetType0",
    "TargetType1",
    "TargetType2",
    "TaskBody",
    "TaskResult",
    "Tick",
    "Ticks",
    "ToolAdditions",
    "ToolCallRecord",
    "ToolCallRecordInput",
    "UnavailableServer",
    "Unhealthy",
    "UpdateAgentResponse401",
    "UpdateAgentResponse403",
    "UpdateAgentResponse413",
    "UpdateAgentResponse415",
    "UpdateAgentResponse503",
    "UpdateFleetResponse401",
    "UpdateFleetResponse403",
    "UpdateFleetResponse413",
    "UpdateFleetResponse415",
    "UpdateFleetResponse503",
    "UpdateSessionResponse401",
    "UpdateSessionResponse403",
    "UpdateSessionResponse413",
    "UpdateSessionResponse415",
    "UpdateSessionResponse503",
    "Usage",
    "UsageView",
    "WaitingCall",
    "Webhook",
    "WorkerInfo",
    "WorkerList",
    "WorkerStatus",
)
