"""Providers: one module per backend, all implementing :class:`~treebrain.llm.providers.base.Provider`."""
