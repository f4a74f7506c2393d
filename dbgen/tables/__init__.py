"""One generator per table (orders+lineitem and part+partsupp as parent/child pairs)."""
