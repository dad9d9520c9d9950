"""Build configuration beyond pyproject.toml: the optional C extension of the BDDL parser.

``symplan_core/bddl/_speedups.c`` (the tokenizer, model-node construction and the ``:init``
reader in C) halves parsing time. It needs only a C compiler and Python's headers, and it is
optional: where it cannot be built the install goes on and the parser uses its pure-Python
versions of the same functions (``symplan_core.bddl.build.COMPILED`` says which is in use).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("symplan_core.bddl._speedups", ["symplan_core/bddl/_speedups.c"], optional=True)])
