"""The ``acid`` result family: TPC-H clause 3's ACID tests and their evidence."""
