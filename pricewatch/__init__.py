"""pricewatch: GPU rental prices scraped, archived, normalized and kept in DuckDB."""
