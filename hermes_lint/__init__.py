"""hermes-lint: static checks for Hermes-style agent tool registrations.

Kept import-light on purpose: the reference runtime imports ``hermes_lint.discovery``,
and importing that must not pull in libcst, click or jsonschema.
"""

__version__ = "0.1.0"
