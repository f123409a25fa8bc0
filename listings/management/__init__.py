"""Management commands of the listings app."""
