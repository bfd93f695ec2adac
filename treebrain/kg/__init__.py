"""The kitchen knowledge-graph pipeline's domain logic: narrations in, a graph of foods and zones out.

Each stage is a pure function over JSON-safe pydantic models, so a behaviour-tree leaf only reads
its inputs from the blackboard, calls one function and writes the result back:

- ``narrations.read_narrations``      CSV/JSONL -> ``Narration`` list (configurable columns);
  ``ingest.plan_ingest`` puts them in time order, one video's, without those already applied
- ``extraction.extract_entities``     narration text -> ``Extraction`` (rules, open vocabulary); the
  optional LLM extractor is ``llm_extraction.build_extraction_prompt`` / ``parse_extraction``
- ``retrieval.retrieve_candidates``   graph + extraction -> ``Retrieval`` (held first, newest first)
- ``rules.decide``                    -> ``RuleDecision``: the update the words imply, and whether it
  is certain enough to apply without an LLM (the rule path); also the fallback's update
- ``prompting.build_update_prompt``   -> ``LlmPrompt`` (system, the few-shot turns most like the
  narration, request, JSON Schema); a retry passes ``RetryFeedback`` (attempt number and errors)
- ``validation.validate_update``      LLM answer -> ``UpdateCheck`` (a ``KgUpdate`` or errors to re-ask),
  including ``agreement.disagreements`` with the narration's verb, object and places
- ``execution.apply_update``          -> ``ExecutionReport``; also ``apply_zone_event`` and
  ``record_unattributed``; places are found or created by ``places.PlaceResolver``
- ``queries``, ``drawing``, ``persistence`` for the CLI; ``evaluation`` and ``eval_set`` for
  ``treebrain eval kg``, ``stories`` for its story-consistency suite; ``pipeline.process_narration``
  chains all stages as one plain loop.

``config.load_kitchen_config`` loads everything under ``config/kitchen/`` (and a dataset's class
files, ``classes``).
"""
