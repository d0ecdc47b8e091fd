"""`python -m pricewatch.cli`: the `pricewatch` command."""

from pricewatch.cli.main import app

app()
