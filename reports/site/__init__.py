"""The results site (``dbbench site``): every result given, on static pages that work from
``file://`` with no network at view time.

``collect`` finds the results among the inputs (files, run, suite and study directories,
HammerDB imports, published records; recursively) and reads each once through the family
registry, its family's ``SiteView`` (``Family.site``) turns each into the row its page shows
(``rows``: what rows share), ``build`` verifies each
(:mod:`reports.verify`) and writes the pages, the raw JSON copies and the manifest through
:mod:`reports.safeio`. The pages hold their data as JSON in a
``<script type="application/json">`` element and ``assets/site.js`` renders it with
``textContent`` only; a Content-Security-Policy forbids any other script and any fetch.
"""
