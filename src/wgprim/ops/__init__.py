"""The primitive families, one module each."""
