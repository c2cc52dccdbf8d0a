"""Introspection: from a PageCapture to the page tools a model sees for the focused tab."""
