"""What the pages, the domain apps and the API share at the edge: how dice, pools,
rolls and charts are drawn for a page (:mod:`web.presenters`, the ``dice`` template
filters) and the form field types that parse input (:mod:`web.fields`).

Not a Django app and no models: it imports only :mod:`rules` and Django's forms and
template utilities, never an app, so every app may import it (the layering contract
in pyproject.toml says so).
"""
