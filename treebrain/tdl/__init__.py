"""TDL program validation and verification: parser, rule levels, semantic prompts, scoring, datasets.

Pure domain logic: nothing here knows it runs in a behaviour tree or calls an LLM. The pipeline's
stages are separate functions (:mod:`treebrain.tdl.pipeline`) that the tree's leaves sequence.
"""
