"""Published claims as data (see rules/README.md)."""
