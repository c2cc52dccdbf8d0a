"""What guards tool calls and their answers: ``guards.py`` (``Guards``: rate limit, confirmation of
destructive calls, audit log, around every ``tools/call``) and the parts it and the tools use:
``ratelimit.py``, ``confirm.py`` + ``calls.py``, ``audit.py`` + ``redact.py`` + ``sensitive.py``,
``untrusted.py`` (page content bounded and marked) and ``origins.py`` (screenshots per origin).

Nothing is imported here: the tools and the drivers import the small modules they need without
loading ``Guards``, which itself depends on the runtime and the tools. docs/security.md has the model.
"""
