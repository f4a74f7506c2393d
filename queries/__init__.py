"""The 22 TPC-H queries: templates, qgen-identical parameters, dialects, answer checks."""
