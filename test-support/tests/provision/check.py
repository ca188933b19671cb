"""Prints the version of the pinned package: proves it is installed and importable."""
import six

print(six.__version__)
