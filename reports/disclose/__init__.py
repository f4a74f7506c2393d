"""The disclosure package of a TPC-H run (``dbbench disclose``): the three-page Executive
Summary (HTML and PDF), the Full Disclosure Report, the auditor's checklist and the
Supporting Files Archive with its manifest of content hashes (clause 8 of the spec)."""
