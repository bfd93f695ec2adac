"""LLM calls for behaviour-tree leaves: providers behind one interface, non-blocking calls, parsing,
budgets, and record/replay. Leaves use :func:`start_call` and poll the returned :class:`LLMCall`.
"""

from treebrain.llm.budget import Budget, Usage, UsageLedger
from treebrain.llm.context import CallContext
from treebrain.llm.errors import LLMError, LLMErrorKind, LLMFailure
from treebrain.llm.parsing import ParseOutcome, parse_structured
from treebrain.llm.profiles import (
    LLMSection,
    ProfileConfig,
    build_provider,
    default_section,
    parse_llm_section,
)
from treebrain.llm.providers.base import Provider
from treebrain.llm.types import (
    Image,
    LLMRequest,
    LLMResponse,
    Message,
    ToolCall,
    ToolSpec,
    request_hash,
)
from treebrain.llm.worker import LLMCall, RetryPolicy, start_call

__all__ = [
    "Budget",
    "CallContext",
    "Image",
    "LLMCall",
    "LLMError",
    "LLMErrorKind",
    "LLMFailure",
    "LLMRequest",
    "LLMResponse",
    "LLMSection",
    "Message",
    "ParseOutcome",
    "ProfileConfig",
    "Provider",
    "RetryPolicy",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "UsageLedger",
    "build_provider",
    "default_section",
    "parse_llm_section",
    "parse_structured",
    "request_hash",
    "start_call",
]
