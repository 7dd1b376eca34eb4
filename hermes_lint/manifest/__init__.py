"""Manifest: the frozen registry manifest generated from the model (generate.py) and its
comparison with a generated one (diff.py)."""
