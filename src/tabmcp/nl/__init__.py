"""Natural-language tools (docs/nl-tools.md): elements, data and facts named in plain words.

Pure, except ``model.py`` (the OpenAI-compatible chat endpoint): ``page.py`` reads a locate-mode
snapshot, ``locate.py`` scores its elements against a description, ``query.py`` and ``check.py``
answer data shapes and assertions from the page when they can, ``steps.py`` reads an action in
plain words, ``prompts.py`` asks the model and checks what it answers.
"""
