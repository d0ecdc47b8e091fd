"""Reports for people: the self-contained HTML report (html.py, charts.py, templates/, sql/)."""
