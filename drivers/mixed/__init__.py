"""The mixed workload: o2c users and TPC-H query streams on one database at the same time
(``dbbench mixed``; docs/mixed.md). Each side runs its own code path as it does alone: the
o2c :class:`~dbbench.drivers.o2c.simulator.Simulator` and the sequencer's query stream
(:func:`~dbbench.drivers.sequencer.streams.run_query_stream`)."""
