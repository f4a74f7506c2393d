"""TPC-H clause 3: the ACID Transaction, the ACID Query, the consistency condition and the
atomicity, consistency and isolation tests, over any transactional :class:`Engine`."""
