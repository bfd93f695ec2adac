"""The voice pipeline's domain logic: spoken command → composite sequence → arm primitives.

Pure functions and pydantic models for each step of the tree (input, phrase bank, classification,
creative axes, prompts, rule validators, pass merging, result, strict mode, compiler, memory writer,
evaluation); the behaviour tree's leaves call them and the LLM leaves make the calls they prepare.
"""
