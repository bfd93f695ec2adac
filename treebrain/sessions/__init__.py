"""Running a pipeline's tree on one input (a voice command, a kitchen narration): what the
``treebrain`` commands and the evaluation suites share, below both."""
