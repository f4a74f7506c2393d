"""o2c: an unofficial, SD-like order-to-cash dialog workload on a loaded TPC-H database.

``setup`` prepares, checks and cleans up the database; ``simulator`` runs simulated users
with think time over a bounded pool of connections ("work processes") and searches for the
largest number of users within a response-time limit. Results go to
:class:`dbbench.reports.o2c.model.O2CResult`.
"""
