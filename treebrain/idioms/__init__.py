"""Reusable tree idioms: YAML subtrees shipped with treebrain (include them as ``@idioms/<file>``)
and the pure logic their glue leaves call.
"""
