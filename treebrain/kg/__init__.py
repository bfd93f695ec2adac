"""The kitchen knowledge-graph pipeline's domain logic: narrations in, a graph of foods and zones out.

Each stage is a pure function over JSON-safe pydantic models, so a behaviour-tree leaf only reads
its inputs from the blackboard, calls one function and writes the result back:

- ``narrations.read_narrations``      CSV/JSONL -> ``Narration`` list (configurable columns)
- ``extraction.extract_entities``     narration text -> ``Extraction`` (rules); the optional LLM
  extractor is ``llm_extraction.build_extraction_prompt`` / ``parse_extraction``
- ``retrieval.retrieve_candidates``   graph + extraction -> ``Retrieval`` (held first, newest first)
- ``prompting.build_update_prompt``   -> ``LlmPrompt`` (system, few-shot turns, request, JSON Schema);
  a retry passes ``RetryFeedback`` (attempt number and the previous errors)
- ``validation.validate_update``      LLM answer -> ``UpdateCheck`` (a ``KgUpdate`` or errors to re-ask)
- ``execution.apply_update``          -> ``ExecutionReport``; also ``apply_zone_event`` and
  ``record_unattributed``; ``fallback.rule_based_update`` after the last failed attempt
- ``queries``, ``drawing``, ``persistence`` for the CLI; ``evaluation`` and ``eval_set`` for
  ``treebrain eval kg``; ``pipeline.process_narration`` chains all stages as one plain loop.

``config.load_kitchen_config`` loads everything under ``config/kitchen/``.
"""
