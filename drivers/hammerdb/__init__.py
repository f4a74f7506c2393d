"""HammerDB as an external load driver: find an install, write its ``auto`` scripts, run
``hammerdbcli``, read its job store (``hammer.DB``) into
:class:`reports.hammerdb.model.HammerDBResult`.

HammerDB itself is never part of dbbench: users install it (release bundle, or its source
tree under a system Tcl), and dbbench talks to what it finds.
"""
