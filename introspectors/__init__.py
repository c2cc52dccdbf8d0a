"""Site-specific introspectors shipped with tabmcp, one module per site.

Every module here that defines a module-level ``INTROSPECTORS`` list is loaded by the registry
(see ``tabmcp.introspect.registry``); site introspectors win over generic ones for the same element.
"""
